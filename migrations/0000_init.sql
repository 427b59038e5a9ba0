CREATE TABLE "identities" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "identities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"provider" text NOT NULL,
	"extern_uid" text NOT NULL,
	"saml_provider_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personal_access_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "personal_access_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"token_digest" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" date,
	"revoked" boolean DEFAULT false NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_custom_attributes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "user_custom_attributes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"username" text NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"encrypted_password" text,
	"password_expires_at" timestamp (3) with time zone,
	"state" text DEFAULT 'active' NOT NULL,
	"admin" boolean DEFAULT false NOT NULL,
	"external" boolean DEFAULT false NOT NULL,
	"user_type" text,
	"bio" text DEFAULT '' NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"public_email" text,
	"commit_email" text,
	"messenger" text DEFAULT '' NOT NULL,
	"professional_profile" text DEFAULT '' NOT NULL,
	"social_handle" text DEFAULT '' NOT NULL,
	"website_url" text DEFAULT '' NOT NULL,
	"organization" text DEFAULT '' NOT NULL,
	"job_title" text DEFAULT '' NOT NULL,
	"note" text,
	"avatar_url" text,
	"projects_limit" integer DEFAULT 100000 NOT NULL,
	"can_create_group" boolean DEFAULT true NOT NULL,
	"theme_id" integer DEFAULT 1 NOT NULL,
	"color_scheme_id" integer DEFAULT 1 NOT NULL,
	"private_profile" boolean DEFAULT false NOT NULL,
	"two_factor_enabled" boolean DEFAULT false NOT NULL,
	"view_diffs_file_by_file" boolean DEFAULT false NOT NULL,
	"shared_runners_minutes_limit" integer,
	"extra_shared_runners_minutes_limit" integer,
	"confirmed_at" timestamp (3) with time zone,
	"last_sign_in_at" timestamp (3) with time zone,
	"current_sign_in_at" timestamp (3) with time zone,
	"last_sign_in_ip" text,
	"current_sign_in_ip" text,
	"sign_in_count" integer DEFAULT 0 NOT NULL,
	"last_activity_on" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_custom_attributes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "group_custom_attributes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "namespaces" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "namespaces_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"name" text NOT NULL,
	"path" text NOT NULL,
	"full_path" text NOT NULL,
	"full_name" text NOT NULL,
	"owner_id" integer,
	"parent_id" integer,
	"traversal_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"visibility_level" integer DEFAULT 0 NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"avatar_url" text,
	"share_with_group_lock" boolean DEFAULT false NOT NULL,
	"require_two_factor_authentication" boolean DEFAULT false NOT NULL,
	"two_factor_grace_period" integer DEFAULT 48 NOT NULL,
	"project_creation_level" integer DEFAULT 2 NOT NULL,
	"subgroup_creation_level" integer DEFAULT 1 NOT NULL,
	"auto_devops_enabled" boolean,
	"emails_disabled" boolean DEFAULT false NOT NULL,
	"mentions_disabled" boolean DEFAULT false NOT NULL,
	"lfs_enabled" boolean DEFAULT true NOT NULL,
	"default_branch_protection" integer DEFAULT 2 NOT NULL,
	"request_access_enabled" boolean DEFAULT true NOT NULL,
	"file_template_project_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_group_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_group_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	"group_access" integer DEFAULT 30 NOT NULL,
	"expires_at" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "projects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"path" text NOT NULL,
	"namespace_id" integer NOT NULL,
	"full_path" text NOT NULL,
	"name_with_namespace" text NOT NULL,
	"creator_id" integer,
	"description" text,
	"visibility_level" integer DEFAULT 0 NOT NULL,
	"default_branch" text,
	"empty_repo" boolean DEFAULT true NOT NULL,
	"initialize_with_readme" boolean DEFAULT false NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"issues_enabled" boolean DEFAULT true NOT NULL,
	"merge_requests_enabled" boolean DEFAULT true NOT NULL,
	"wiki_enabled" boolean DEFAULT true NOT NULL,
	"jobs_enabled" boolean DEFAULT true NOT NULL,
	"snippets_enabled" boolean DEFAULT true NOT NULL,
	"shared_runners_enabled" boolean DEFAULT true NOT NULL,
	"public_jobs" boolean DEFAULT true NOT NULL,
	"request_access_enabled" boolean DEFAULT true NOT NULL,
	"tag_list" text[] DEFAULT '{}'::text[] NOT NULL,
	"star_count" integer DEFAULT 0 NOT NULL,
	"forks_count" integer DEFAULT 0 NOT NULL,
	"open_issues_count" integer DEFAULT 0 NOT NULL,
	"avatar_url" text,
	"last_activity_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "members_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source_type" text NOT NULL,
	"source_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"access_level" integer NOT NULL,
	"expires_at" date,
	"created_by_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "application_settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"admin_mode" boolean DEFAULT false NOT NULL,
	"default_projects_limit" integer DEFAULT 100000 NOT NULL,
	"default_project_visibility" text DEFAULT 'private' NOT NULL,
	"default_group_visibility" text DEFAULT 'private' NOT NULL,
	"issues_create_limit" integer DEFAULT 300 NOT NULL,
	"notes_create_limit" integer DEFAULT 300 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identities" ADD CONSTRAINT "identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personal_access_tokens" ADD CONSTRAINT "personal_access_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_custom_attributes" ADD CONSTRAINT "user_custom_attributes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_custom_attributes" ADD CONSTRAINT "group_custom_attributes_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_group_links" ADD CONSTRAINT "project_group_links_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_group_links" ADD CONSTRAINT "project_group_links_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_namespace_id_namespaces_id_fk" FOREIGN KEY ("namespace_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_identities_on_user_id_and_provider" ON "identities" USING btree ("user_id","provider");--> statement-breakpoint
CREATE INDEX "index_identities_on_provider_and_extern_uid" ON "identities" USING btree ("provider","extern_uid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_personal_access_tokens_on_token_digest" ON "personal_access_tokens" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "index_personal_access_tokens_on_user_id_and_id" ON "personal_access_tokens" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_user_custom_attributes_on_user_id_and_key" ON "user_custom_attributes" USING btree ("user_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "index_users_on_lower_username" ON "users" USING btree (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX "index_users_on_lower_email" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "index_users_on_state_and_id" ON "users" USING btree ("state","id");--> statement-breakpoint
CREATE INDEX "index_users_on_created_at_and_id" ON "users" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_group_custom_attributes_on_group_id_and_key" ON "group_custom_attributes" USING btree ("group_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "index_namespaces_on_lower_full_path" ON "namespaces" USING btree (lower("full_path"));--> statement-breakpoint
CREATE INDEX "index_namespaces_on_parent_id_and_id" ON "namespaces" USING btree ("parent_id","id");--> statement-breakpoint
CREATE INDEX "index_namespaces_on_traversal_ids" ON "namespaces" USING gin ("traversal_ids");--> statement-breakpoint
CREATE INDEX "index_namespaces_on_type_and_name" ON "namespaces" USING btree ("type","name","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_namespaces_on_owner_id_for_users" ON "namespaces" USING btree ("owner_id") WHERE type = 'User';--> statement-breakpoint
CREATE UNIQUE INDEX "index_project_group_links_on_project_id_and_group_id" ON "project_group_links" USING btree ("project_id","group_id");--> statement-breakpoint
CREATE INDEX "index_project_group_links_on_group_id" ON "project_group_links" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_projects_on_lower_full_path" ON "projects" USING btree (lower("full_path"));--> statement-breakpoint
CREATE INDEX "index_projects_on_namespace_id_and_id" ON "projects" USING btree ("namespace_id","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_visibility_level_and_id" ON "projects" USING btree ("visibility_level","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_created_at_and_id" ON "projects" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_last_activity_at_and_id" ON "projects" USING btree ("last_activity_at","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_name_and_id" ON "projects" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_path_and_id" ON "projects" USING btree ("path","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_updated_at_and_id" ON "projects" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "index_projects_on_creator_id" ON "projects" USING btree ("creator_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_members_on_source_and_user_id" ON "members" USING btree ("source_type","source_id","user_id");--> statement-breakpoint
CREATE INDEX "index_members_on_user_id_and_source" ON "members" USING btree ("user_id","source_type","source_id");