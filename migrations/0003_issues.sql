CREATE TABLE "application_rate_limits" (
	"key" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "application_rate_limits_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "award_emoji" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "award_emoji_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"user_id" integer NOT NULL,
	"awardable_type" text NOT NULL,
	"awardable_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "epics" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "epics_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"group_id" integer NOT NULL,
	"parent_id" integer,
	"author_id" integer,
	"title" text NOT NULL,
	"description" text,
	"state" text DEFAULT 'opened' NOT NULL,
	"confidential" boolean DEFAULT false NOT NULL,
	"start_date" date,
	"due_date" date,
	"relative_position" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "internal_ids" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "internal_ids_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"usage" text NOT NULL,
	"project_id" integer,
	"namespace_id" integer,
	"last_value" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "issuable_metric_images" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "issuable_metric_images_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"issue_id" integer NOT NULL,
	"file_name" text NOT NULL,
	"r2_key" text NOT NULL,
	"url" text,
	"url_text" text,
	"size" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "issue_assignees" (
	"issue_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "issue_assignees_issue_id_user_id_pk" PRIMARY KEY("issue_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "issue_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "issue_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source_id" integer NOT NULL,
	"target_id" integer NOT NULL,
	"link_type" text DEFAULT 'relates_to' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "issue_merge_request_references" (
	"issue_id" integer NOT NULL,
	"merge_request_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "issue_merge_request_references_issue_id_merge_request_id_pk" PRIMARY KEY("issue_id","merge_request_id")
);
--> statement-breakpoint
CREATE TABLE "issues" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "issues_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"state" text DEFAULT 'opened' NOT NULL,
	"issue_type" text DEFAULT 'issue' NOT NULL,
	"author_id" integer,
	"closed_by_id" integer,
	"closed_at" timestamp (3) with time zone,
	"milestone_id" integer,
	"confidential" boolean DEFAULT false NOT NULL,
	"discussion_locked" boolean,
	"due_date" date,
	"weight" integer,
	"iteration_id" integer,
	"health_status" text,
	"relative_position" integer,
	"moved_to_id" integer,
	"duplicated_to_id" integer,
	"time_estimate" integer DEFAULT 0 NOT NULL,
	"total_time_spent" integer DEFAULT 0 NOT NULL,
	"upvotes" integer DEFAULT 0 NOT NULL,
	"downvotes" integer DEFAULT 0 NOT NULL,
	"user_notes_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "label_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "label_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"label_id" integer NOT NULL,
	"target_type" text NOT NULL,
	"target_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "labels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "labels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"group_id" integer,
	"title" text NOT NULL,
	"color" text NOT NULL,
	"description" text,
	"priority" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merge_request_assignees" (
	"merge_request_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "merge_request_assignees_merge_request_id_user_id_pk" PRIMARY KEY("merge_request_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "merge_request_reviewers" (
	"merge_request_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "merge_request_reviewers_merge_request_id_user_id_pk" PRIMARY KEY("merge_request_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "merge_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merge_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer NOT NULL,
	"source_project_id" integer NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"state" text DEFAULT 'opened' NOT NULL,
	"source_branch" text NOT NULL,
	"target_branch" text NOT NULL,
	"author_id" integer,
	"closed_by_id" integer,
	"closed_at" timestamp (3) with time zone,
	"merged_by_id" integer,
	"merged_at" timestamp (3) with time zone,
	"milestone_id" integer,
	"draft" boolean DEFAULT false NOT NULL,
	"discussion_locked" boolean,
	"squash" boolean DEFAULT false NOT NULL,
	"force_remove_source_branch" boolean,
	"merge_when_pipeline_succeeds" boolean DEFAULT false NOT NULL,
	"merge_status" text DEFAULT 'unchecked' NOT NULL,
	"sha" text,
	"merge_commit_sha" text,
	"squash_commit_sha" text,
	"time_estimate" integer DEFAULT 0 NOT NULL,
	"total_time_spent" integer DEFAULT 0 NOT NULL,
	"upvotes" integer DEFAULT 0 NOT NULL,
	"downvotes" integer DEFAULT 0 NOT NULL,
	"user_notes_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merge_requests_closing_issues" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "merge_requests_closing_issues_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merge_request_id" integer NOT NULL,
	"issue_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "milestones" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "milestones_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer,
	"group_id" integer,
	"title" text NOT NULL,
	"description" text,
	"state" text DEFAULT 'active' NOT NULL,
	"due_date" date,
	"start_date" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"noteable_type" text NOT NULL,
	"noteable_id" integer NOT NULL,
	"project_id" integer,
	"author_id" integer,
	"note" text NOT NULL,
	"system" boolean DEFAULT false NOT NULL,
	"confidential" boolean DEFAULT false NOT NULL,
	"type" text,
	"discussion_id" text NOT NULL,
	"resolvable" boolean DEFAULT false NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"resolved_by_id" integer,
	"updated_by_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resource_label_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "resource_label_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"action" text NOT NULL,
	"issue_id" integer,
	"merge_request_id" integer,
	"epic_id" integer,
	"label_id" integer,
	"user_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resource_milestone_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "resource_milestone_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"action" text NOT NULL,
	"issue_id" integer,
	"merge_request_id" integer,
	"milestone_id" integer,
	"user_id" integer,
	"state" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resource_state_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "resource_state_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"state" text NOT NULL,
	"issue_id" integer,
	"merge_request_id" integer,
	"user_id" integer,
	"source_commit" text,
	"source_merge_request_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "snippets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "snippets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"author_id" integer,
	"title" text NOT NULL,
	"description" text,
	"file_name" text,
	"content" text DEFAULT '' NOT NULL,
	"visibility_level" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "timelogs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "timelogs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"time_spent" integer NOT NULL,
	"user_id" integer,
	"issue_id" integer,
	"merge_request_id" integer,
	"spent_at" timestamp (3) with time zone,
	"summary" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "todos" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "todos_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"project_id" integer,
	"group_id" integer,
	"author_id" integer,
	"target_type" text NOT NULL,
	"target_id" integer NOT NULL,
	"note_id" integer,
	"action" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_agent_details" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "user_agent_details_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"subject_type" text NOT NULL,
	"subject_id" integer NOT NULL,
	"user_agent" text NOT NULL,
	"ip_address" text NOT NULL,
	"submitted" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "epics" ADD CONSTRAINT "epics_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "epics" ADD CONSTRAINT "epics_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "internal_ids" ADD CONSTRAINT "internal_ids_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "internal_ids" ADD CONSTRAINT "internal_ids_namespace_id_namespaces_id_fk" FOREIGN KEY ("namespace_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issuable_metric_images" ADD CONSTRAINT "issuable_metric_images_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_assignees" ADD CONSTRAINT "issue_assignees_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_assignees" ADD CONSTRAINT "issue_assignees_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_source_id_issues_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_target_id_issues_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_merge_request_references" ADD CONSTRAINT "issue_merge_request_references_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_merge_request_references" ADD CONSTRAINT "issue_merge_request_references_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_closed_by_id_users_id_fk" FOREIGN KEY ("closed_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_label_id_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_request_assignees" ADD CONSTRAINT "merge_request_assignees_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_request_assignees" ADD CONSTRAINT "merge_request_assignees_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_request_reviewers" ADD CONSTRAINT "merge_request_reviewers_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_request_reviewers" ADD CONSTRAINT "merge_request_reviewers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_closed_by_id_users_id_fk" FOREIGN KEY ("closed_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_merged_by_id_users_id_fk" FOREIGN KEY ("merged_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests_closing_issues" ADD CONSTRAINT "merge_requests_closing_issues_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merge_requests_closing_issues" ADD CONSTRAINT "merge_requests_closing_issues_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notes" ADD CONSTRAINT "notes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notes" ADD CONSTRAINT "notes_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_epic_id_epics_id_fk" FOREIGN KEY ("epic_id") REFERENCES "public"."epics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_label_id_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."labels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snippets" ADD CONSTRAINT "snippets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "snippets" ADD CONSTRAINT "snippets_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_award_emoji_on_awardable_user_name" ON "award_emoji" USING btree ("awardable_type","awardable_id","user_id","name");--> statement-breakpoint
CREATE INDEX "index_award_emoji_on_user_id_and_name" ON "award_emoji" USING btree ("user_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_epics_on_group_id_and_iid" ON "epics" USING btree ("group_id","iid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_internal_ids_on_usage_and_project_id" ON "internal_ids" USING btree ("usage","project_id") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_internal_ids_on_usage_and_namespace_id" ON "internal_ids" USING btree ("usage","namespace_id") WHERE namespace_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_issuable_metric_images_on_issue_id" ON "issuable_metric_images" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_issue_assignees_on_user_id" ON "issue_assignees" USING btree ("user_id","issue_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_issue_links_on_source_id_and_target_id" ON "issue_links" USING btree ("source_id","target_id");--> statement-breakpoint
CREATE INDEX "index_issue_links_on_target_id" ON "issue_links" USING btree ("target_id");--> statement-breakpoint
CREATE INDEX "index_issue_mr_refs_on_mr" ON "issue_merge_request_references" USING btree ("merge_request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_issues_on_project_id_and_iid" ON "issues" USING btree ("project_id","iid");--> statement-breakpoint
CREATE INDEX "index_issues_on_project_id_and_state_and_created_at" ON "issues" USING btree ("project_id","state","created_at","id");--> statement-breakpoint
CREATE INDEX "index_issues_on_project_id_and_updated_at" ON "issues" USING btree ("project_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "index_issues_on_author_id_and_created_at" ON "issues" USING btree ("author_id","created_at","id");--> statement-breakpoint
CREATE INDEX "index_issues_on_milestone_id" ON "issues" USING btree ("milestone_id");--> statement-breakpoint
CREATE INDEX "index_issues_on_state_and_created_at" ON "issues" USING btree ("state","created_at","id");--> statement-breakpoint
CREATE INDEX "index_issues_on_project_id_and_due_date" ON "issues" USING btree ("project_id","due_date","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_label_links_on_target_and_label" ON "label_links" USING btree ("target_type","target_id","label_id");--> statement-breakpoint
CREATE INDEX "index_label_links_on_label_id_and_target" ON "label_links" USING btree ("label_id","target_type","target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_labels_on_project_id_and_title" ON "labels" USING btree ("project_id","title") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_labels_on_group_id_and_title" ON "labels" USING btree ("group_id","title") WHERE group_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_mr_assignees_on_user_id" ON "merge_request_assignees" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_merge_requests_on_project_id_and_iid" ON "merge_requests" USING btree ("project_id","iid");--> statement-breakpoint
CREATE INDEX "index_merge_requests_on_project_id_and_state_and_created_at" ON "merge_requests" USING btree ("project_id","state","created_at","id");--> statement-breakpoint
CREATE INDEX "index_merge_requests_on_author_id" ON "merge_requests" USING btree ("author_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_mr_closing_issues_on_mr_and_issue" ON "merge_requests_closing_issues" USING btree ("merge_request_id","issue_id");--> statement-breakpoint
CREATE INDEX "index_mr_closing_issues_on_issue_id" ON "merge_requests_closing_issues" USING btree ("issue_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_milestones_on_project_id_and_iid" ON "milestones" USING btree ("project_id","iid") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_milestones_on_project_id_and_title" ON "milestones" USING btree ("project_id","title") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_notes_on_noteable_and_created_at" ON "notes" USING btree ("noteable_type","noteable_id","created_at","id");--> statement-breakpoint
CREATE INDEX "index_notes_on_discussion_id" ON "notes" USING btree ("discussion_id");--> statement-breakpoint
CREATE INDEX "index_notes_on_author_id" ON "notes" USING btree ("author_id");--> statement-breakpoint
CREATE INDEX "index_resource_label_events_on_issue_id" ON "resource_label_events" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_resource_label_events_on_mr_id" ON "resource_label_events" USING btree ("merge_request_id");--> statement-breakpoint
CREATE INDEX "index_resource_milestone_events_on_issue_id" ON "resource_milestone_events" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_resource_milestone_events_on_mr_id" ON "resource_milestone_events" USING btree ("merge_request_id");--> statement-breakpoint
CREATE INDEX "index_resource_state_events_on_issue_id" ON "resource_state_events" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_resource_state_events_on_mr_id" ON "resource_state_events" USING btree ("merge_request_id");--> statement-breakpoint
CREATE INDEX "index_snippets_on_project_id_and_id" ON "snippets" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_timelogs_on_issue_id" ON "timelogs" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_timelogs_on_mr_id" ON "timelogs" USING btree ("merge_request_id");--> statement-breakpoint
CREATE INDEX "index_todos_on_user_id_and_state_and_id" ON "todos" USING btree ("user_id","state","id");--> statement-breakpoint
CREATE INDEX "index_todos_on_target" ON "todos" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_user_agent_details_on_subject" ON "user_agent_details" USING btree ("subject_type","subject_id");