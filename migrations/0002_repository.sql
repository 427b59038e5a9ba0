CREATE TABLE "git_commit_changes" (
	"pool_id" integer NOT NULL,
	"commit_oid" char(40) COLLATE "C" NOT NULL,
	"path" text NOT NULL,
	"old_path" text,
	"status" text NOT NULL,
	"old_mode" integer,
	"new_mode" integer,
	"old_oid" char(40) COLLATE "C",
	"new_oid" char(40) COLLATE "C",
	"additions" integer DEFAULT 0 NOT NULL,
	"deletions" integer DEFAULT 0 NOT NULL,
	"binary" boolean DEFAULT false NOT NULL,
	CONSTRAINT "git_commit_changes_pool_id_commit_oid_path_pk" PRIMARY KEY("pool_id","commit_oid","path")
);
--> statement-breakpoint
CREATE TABLE "git_commits" (
	"pool_id" integer NOT NULL,
	"oid" char(40) COLLATE "C" NOT NULL,
	"tree" char(40) COLLATE "C" NOT NULL,
	"parents" text[] NOT NULL,
	"generation" integer NOT NULL,
	"author_name" text NOT NULL,
	"author_email" text NOT NULL,
	"authored_at" timestamp (3) with time zone NOT NULL,
	"author_tz" smallint NOT NULL,
	"committer_name" text NOT NULL,
	"committer_email" text NOT NULL,
	"committed_at" timestamp (3) with time zone NOT NULL,
	"committer_tz" smallint NOT NULL,
	"message" text NOT NULL,
	"additions" integer DEFAULT 0 NOT NULL,
	"deletions" integer DEFAULT 0 NOT NULL,
	"files_changed" integer DEFAULT 0 NOT NULL,
	"changes_indexed" boolean DEFAULT true NOT NULL,
	CONSTRAINT "git_commits_pool_id_oid_pk" PRIMARY KEY("pool_id","oid")
);
--> statement-breakpoint
CREATE TABLE "git_objects" (
	"pool_id" integer NOT NULL,
	"oid" "bytea" NOT NULL,
	"type" smallint NOT NULL,
	"size" integer NOT NULL,
	"zdata" "bytea",
	"r2_key" text,
	CONSTRAINT "git_objects_pool_id_oid_pk" PRIMARY KEY("pool_id","oid"),
	CONSTRAINT "git_objects_one_location" CHECK (("git_objects"."zdata" IS NULL) <> ("git_objects"."r2_key" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "git_refs" (
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"target" char(40) COLLATE "C" NOT NULL,
	"peeled" char(40) COLLATE "C",
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_refs_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
CREATE TABLE "push_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "push_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"ref" text NOT NULL,
	"before" char(40) COLLATE "C" NOT NULL,
	"after" char(40) COLLATE "C" NOT NULL,
	"user_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "git_refs" ADD CONSTRAINT "git_refs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_events" ADD CONSTRAINT "push_events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_events" ADD CONSTRAINT "push_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_git_commit_changes_on_pool_path_commit" ON "git_commit_changes" USING btree ("pool_id","path" text_pattern_ops,"commit_oid");--> statement-breakpoint
CREATE INDEX "index_git_commit_changes_on_pool_old_path" ON "git_commit_changes" USING btree ("pool_id","old_path" text_pattern_ops) WHERE "git_commit_changes"."old_path" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "index_push_events_on_project_id_and_id" ON "push_events" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_push_events_unprocessed" ON "push_events" USING btree ("created_at") WHERE "push_events"."processed_at" IS NULL;--> statement-breakpoint
ALTER TABLE "git_objects" ALTER COLUMN "zdata" SET STORAGE EXTERNAL;