CREATE TABLE "merge_request_diffs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merge_request_diffs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merge_request_id" integer NOT NULL,
	"head_commit_sha" text NOT NULL,
	"base_commit_sha" text,
	"start_commit_sha" text,
	"state" text DEFAULT 'collected' NOT NULL,
	"files_count" integer DEFAULT 0 NOT NULL,
	"commits_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_project_rules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "approval_project_rules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"approvals_required" integer DEFAULT 0 NOT NULL,
	"rule_type" text DEFAULT 'regular' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_project_rules_groups" (
	"rule_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "approval_project_rules_groups_rule_id_group_id_pk" PRIMARY KEY("rule_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "approval_project_rules_protected_branches" (
	"rule_id" integer NOT NULL,
	"protected_branch_id" integer NOT NULL,
	CONSTRAINT "approval_project_rules_protected_branches_rule_id_protected_branch_id_pk" PRIMARY KEY("rule_id","protected_branch_id")
);
--> statement-breakpoint
CREATE TABLE "approval_project_rules_users" (
	"rule_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "approval_project_rules_users_rule_id_user_id_pk" PRIMARY KEY("rule_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "approvals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merge_request_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_approval_settings" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"approvals_before_merge" integer DEFAULT 0 NOT NULL,
	"reset_approvals_on_push" boolean DEFAULT true NOT NULL,
	"disable_overriding_approvers_per_merge_request" boolean DEFAULT false NOT NULL,
	"merge_requests_author_approval" boolean DEFAULT false NOT NULL,
	"merge_requests_disable_committers_approval" boolean DEFAULT false NOT NULL,
	"require_password_to_approve" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "merge_method" text DEFAULT 'merge' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "squash_option" text DEFAULT 'default_off' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "remove_source_branch_after_merge" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "only_allow_merge_if_pipeline_succeeds" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "should_remove_source_branch" boolean;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "merge_error" text;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "merge_check_source_sha" text;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "merge_check_target_sha" text;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "merge_user_id" integer;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD COLUMN "approvals_before_merge" integer;--> statement-breakpoint
ALTER TABLE "merge_request_diffs" ADD CONSTRAINT "merge_request_diffs_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules" ADD CONSTRAINT "approval_project_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_groups" ADD CONSTRAINT "approval_project_rules_groups_rule_id_approval_project_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."approval_project_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_groups" ADD CONSTRAINT "approval_project_rules_groups_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_protected_branches" ADD CONSTRAINT "approval_project_rules_protected_branches_rule_id_approval_project_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."approval_project_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_protected_branches" ADD CONSTRAINT "approval_project_rules_protected_branches_protected_branch_id_protected_branches_id_fk" FOREIGN KEY ("protected_branch_id") REFERENCES "public"."protected_branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_users" ADD CONSTRAINT "approval_project_rules_users_rule_id_approval_project_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."approval_project_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_project_rules_users" ADD CONSTRAINT "approval_project_rules_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_approval_settings" ADD CONSTRAINT "project_approval_settings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_merge_request_diffs_on_mr_id_and_head" ON "merge_request_diffs" USING btree ("merge_request_id","head_commit_sha");--> statement-breakpoint
CREATE UNIQUE INDEX "index_approval_project_rules_on_project_id_and_name" ON "approval_project_rules" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_approvals_on_merge_request_id_and_user_id" ON "approvals" USING btree ("merge_request_id","user_id");--> statement-breakpoint
CREATE INDEX "index_approvals_on_user_id" ON "approvals" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_merge_user_id_users_id_fk" FOREIGN KEY ("merge_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;