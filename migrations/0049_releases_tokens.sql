CREATE TABLE "deploy_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deploy_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"group_id" integer,
	"name" text NOT NULL,
	"username" text NOT NULL,
	"token_digest" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"revoked" boolean DEFAULT false NOT NULL,
	"creator_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "milestone_releases" (
	"milestone_id" integer NOT NULL,
	"release_id" integer NOT NULL,
	CONSTRAINT "milestone_releases_release_id_milestone_id_pk" PRIMARY KEY("release_id","milestone_id")
);
--> statement-breakpoint
CREATE TABLE "protected_tag_create_access_levels" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "protected_tag_create_access_levels_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"protected_tag_id" integer NOT NULL,
	"access_level" smallint,
	"user_id" integer,
	"group_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "protected_tags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "protected_tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_evidences" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "release_evidences_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"release_id" integer NOT NULL,
	"summary" jsonb NOT NULL,
	"summary_sha" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "release_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"release_id" integer NOT NULL,
	"url" text NOT NULL,
	"name" text NOT NULL,
	"filepath" text,
	"link_type" text DEFAULT 'other' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "releases" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "releases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"tag" text NOT NULL,
	"name" text,
	"description" text,
	"author_id" integer,
	"sha" text,
	"released_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_tokens" ADD CONSTRAINT "deploy_tokens_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_tokens" ADD CONSTRAINT "deploy_tokens_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_tokens" ADD CONSTRAINT "deploy_tokens_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "milestone_releases" ADD CONSTRAINT "milestone_releases_milestone_id_milestones_id_fk" FOREIGN KEY ("milestone_id") REFERENCES "public"."milestones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "milestone_releases" ADD CONSTRAINT "milestone_releases_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_tag_create_access_levels" ADD CONSTRAINT "protected_tag_create_access_levels_protected_tag_id_protected_tags_id_fk" FOREIGN KEY ("protected_tag_id") REFERENCES "public"."protected_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_tag_create_access_levels" ADD CONSTRAINT "protected_tag_create_access_levels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_tag_create_access_levels" ADD CONSTRAINT "protected_tag_create_access_levels_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_tags" ADD CONSTRAINT "protected_tags_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_evidences" ADD CONSTRAINT "release_evidences_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_links" ADD CONSTRAINT "release_links_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_deploy_tokens_on_token_digest" ON "deploy_tokens" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "index_deploy_tokens_on_project_id" ON "deploy_tokens" USING btree ("project_id","id") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_deploy_tokens_on_group_id" ON "deploy_tokens" USING btree ("group_id","id") WHERE group_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_milestone_releases_on_milestone_id" ON "milestone_releases" USING btree ("milestone_id");--> statement-breakpoint
CREATE INDEX "index_protected_tag_create_access_levels_on_tag" ON "protected_tag_create_access_levels" USING btree ("protected_tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_protected_tags_on_project_id_and_name" ON "protected_tags" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "index_release_evidences_on_release_id" ON "release_evidences" USING btree ("release_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_release_links_on_release_id_and_url" ON "release_links" USING btree ("release_id","url");--> statement-breakpoint
CREATE UNIQUE INDEX "index_release_links_on_release_id_and_name" ON "release_links" USING btree ("release_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_releases_on_project_id_and_tag" ON "releases" USING btree ("project_id","tag");--> statement-breakpoint
CREATE INDEX "index_releases_on_project_id_and_released_at" ON "releases" USING btree ("project_id","released_at","id");--> statement-breakpoint
CREATE INDEX "index_releases_on_project_id_and_created_at" ON "releases" USING btree ("project_id","created_at","id");