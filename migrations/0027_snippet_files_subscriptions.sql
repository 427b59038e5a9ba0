CREATE TABLE "snippet_files" (
	"snippet_id" integer NOT NULL,
	"path" text NOT NULL,
	"content" text NOT NULL,
	CONSTRAINT "snippet_files_snippet_id_path_pk" PRIMARY KEY("snippet_id","path")
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"subscribable_type" text NOT NULL,
	"subscribable_id" integer NOT NULL,
	"project_id" integer,
	"subscribed" boolean NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "snippet_files" ADD CONSTRAINT "snippet_files_snippet_id_snippets_id_fk" FOREIGN KEY ("snippet_id") REFERENCES "public"."snippets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_subscriptions_on_subscribable_and_user_id_and_project_id" ON "subscriptions" USING btree ("subscribable_id","subscribable_type","user_id","project_id");--> statement-breakpoint
CREATE INDEX "index_subscriptions_on_user" ON "subscriptions" USING btree ("user_id");