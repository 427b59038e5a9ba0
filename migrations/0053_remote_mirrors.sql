CREATE TABLE "remote_mirrors" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "remote_mirrors_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"url" text NOT NULL,
	"credentials" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"only_protected_branches" boolean DEFAULT false NOT NULL,
	"keep_divergent_refs" boolean DEFAULT false NOT NULL,
	"update_status" text DEFAULT 'none' NOT NULL,
	"last_update_at" timestamp (3) with time zone,
	"last_update_started_at" timestamp (3) with time zone,
	"last_successful_update_at" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "remote_mirrors" ADD CONSTRAINT "remote_mirrors_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_remote_mirrors_on_project_id" ON "remote_mirrors" USING btree ("project_id");