CREATE TABLE "protected_branch_access_levels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "protected_branch_access_levels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"protected_branch_id" integer NOT NULL,
	"action" text NOT NULL,
	"access_level" smallint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "protected_branches" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "protected_branches_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"allow_force_push" boolean DEFAULT false NOT NULL,
	"code_owner_approval_required" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_commit_statuses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_commit_statuses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"pipeline_id" integer,
	"sha" char(40) COLLATE "C" NOT NULL,
	"ref" text,
	"name" text DEFAULT 'default' NOT NULL,
	"stage" text DEFAULT 'external' NOT NULL,
	"status" text NOT NULL,
	"description" text,
	"target_url" text,
	"coverage" real,
	"allow_failure" boolean DEFAULT false NOT NULL,
	"user_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ADD CONSTRAINT "protected_branch_access_levels_protected_branch_id_protected_branches_id_fk" FOREIGN KEY ("protected_branch_id") REFERENCES "public"."protected_branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_branches" ADD CONSTRAINT "protected_branches_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_commit_statuses" ADD CONSTRAINT "ci_commit_statuses_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_commit_statuses" ADD CONSTRAINT "ci_commit_statuses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_protected_branch_access_levels_on_branch" ON "protected_branch_access_levels" USING btree ("protected_branch_id","action");--> statement-breakpoint
CREATE UNIQUE INDEX "index_protected_branches_on_project_id_and_name" ON "protected_branches" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "index_ci_commit_statuses_on_project_sha" ON "ci_commit_statuses" USING btree ("project_id","sha","id");