CREATE TABLE "terraform_state_versions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "terraform_state_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"terraform_state_id" integer NOT NULL,
	"version" integer NOT NULL,
	"r2_key" text NOT NULL,
	"size" integer NOT NULL,
	"created_by_user_id" integer,
	"ci_build_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "terraform_states" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "terraform_states_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"lock_xid" text,
	"locked_at" timestamp (3) with time zone,
	"locked_by_user_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "terraform_state_versions" ADD CONSTRAINT "terraform_state_versions_terraform_state_id_terraform_states_id_fk" FOREIGN KEY ("terraform_state_id") REFERENCES "public"."terraform_states"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terraform_state_versions" ADD CONSTRAINT "terraform_state_versions_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terraform_state_versions" ADD CONSTRAINT "terraform_state_versions_ci_build_id_ci_builds_id_fk" FOREIGN KEY ("ci_build_id") REFERENCES "public"."ci_builds"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terraform_states" ADD CONSTRAINT "terraform_states_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terraform_states" ADD CONSTRAINT "terraform_states_locked_by_user_id_users_id_fk" FOREIGN KEY ("locked_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_terraform_state_versions_on_state_id_and_version" ON "terraform_state_versions" USING btree ("terraform_state_id","version");--> statement-breakpoint
CREATE INDEX "index_terraform_state_versions_on_ci_build_id" ON "terraform_state_versions" USING btree ("ci_build_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_terraform_states_on_project_id_and_name" ON "terraform_states" USING btree ("project_id","name");