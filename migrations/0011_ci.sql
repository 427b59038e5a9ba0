CREATE TABLE "ci_build_trace_chunks" (
	"build_id" integer NOT NULL,
	"offset" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "ci_build_trace_chunks_build_id_offset_pk" PRIMARY KEY("build_id","offset")
);
--> statement-breakpoint
CREATE TABLE "ci_builds" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_builds_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"pipeline_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"stage_id" integer,
	"stage_idx" integer NOT NULL,
	"stage" text NOT NULL,
	"name" text NOT NULL,
	"type" text DEFAULT 'build' NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"when" text DEFAULT 'on_success' NOT NULL,
	"allow_failure" boolean DEFAULT false NOT NULL,
	"allow_failure_exit_codes" integer[],
	"scheduling_type" text DEFAULT 'stage' NOT NULL,
	"retried" boolean DEFAULT false NOT NULL,
	"processed" boolean DEFAULT false NOT NULL,
	"lock_version" integer DEFAULT 0 NOT NULL,
	"token_digest" text,
	"runner_id" integer,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"yaml_variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"needs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tag_list" text[] DEFAULT '{}'::text[] NOT NULL,
	"coverage_regex" text,
	"coverage" real,
	"failure_reason" text,
	"exit_code" integer,
	"timeout" integer,
	"trace_size" integer DEFAULT 0 NOT NULL,
	"user_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"queued_at" timestamp (3) with time zone,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"scheduled_at" timestamp (3) with time zone,
	"erased_at" timestamp (3) with time zone,
	"artifacts_expire_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "ci_job_artifacts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_job_artifacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"job_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"file_type" text NOT NULL,
	"file_format" text NOT NULL,
	"filename" text NOT NULL,
	"size" bigint NOT NULL,
	"r2_key" text NOT NULL,
	"expire_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_pipeline_variables" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_pipeline_variables_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"pipeline_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"variable_type" text DEFAULT 'env_var' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_pipelines" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_pipelines_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer NOT NULL,
	"ref" text NOT NULL,
	"tag" boolean DEFAULT false NOT NULL,
	"sha" text NOT NULL,
	"before_sha" text DEFAULT '0000000000000000000000000000000000000000' NOT NULL,
	"source" text NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"user_id" integer,
	"yaml_errors" text,
	"failure_reason" text,
	"push_event_id" bigint,
	"parent_pipeline_id" integer,
	"source_job_id" integer,
	"coverage" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"duration" integer,
	"lock_version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_queue_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_registration_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_registration_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"token_digest" text NOT NULL,
	"project_id" integer,
	"namespace_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_runner_namespaces" (
	"runner_id" integer NOT NULL,
	"namespace_id" integer NOT NULL,
	CONSTRAINT "ci_runner_namespaces_runner_id_namespace_id_pk" PRIMARY KEY("runner_id","namespace_id")
);
--> statement-breakpoint
CREATE TABLE "ci_runner_projects" (
	"runner_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	CONSTRAINT "ci_runner_projects_runner_id_project_id_pk" PRIMARY KEY("runner_id","project_id")
);
--> statement-breakpoint
CREATE TABLE "ci_runners" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_runners_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"token_digest" text NOT NULL,
	"runner_type" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"run_untagged" boolean DEFAULT true NOT NULL,
	"tag_list" text[] DEFAULT '{}'::text[] NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"access_level" text DEFAULT 'not_protected' NOT NULL,
	"maximum_timeout" integer,
	"name" text,
	"version" text,
	"revision" text,
	"platform" text,
	"architecture" text,
	"ip_address" text,
	"contacted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_stages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_stages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"pipeline_id" integer NOT NULL,
	"name" text NOT NULL,
	"position" integer NOT NULL,
	"status" text DEFAULT 'created' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_variables" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_variables_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"variable_type" text DEFAULT 'env_var' NOT NULL,
	"protected" boolean DEFAULT false NOT NULL,
	"masked" boolean DEFAULT false NOT NULL,
	"raw" boolean DEFAULT false NOT NULL,
	"environment_scope" text DEFAULT '*' NOT NULL,
	"description" text
);
--> statement-breakpoint
ALTER TABLE "ci_build_trace_chunks" ADD CONSTRAINT "ci_build_trace_chunks_build_id_ci_builds_id_fk" FOREIGN KEY ("build_id") REFERENCES "public"."ci_builds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_pipeline_id_ci_pipelines_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "public"."ci_pipelines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_stage_id_ci_stages_id_fk" FOREIGN KEY ("stage_id") REFERENCES "public"."ci_stages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_job_artifacts" ADD CONSTRAINT "ci_job_artifacts_job_id_ci_builds_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."ci_builds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipeline_variables" ADD CONSTRAINT "ci_pipeline_variables_pipeline_id_ci_pipelines_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "public"."ci_pipelines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_registration_tokens" ADD CONSTRAINT "ci_registration_tokens_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_registration_tokens" ADD CONSTRAINT "ci_registration_tokens_namespace_id_namespaces_id_fk" FOREIGN KEY ("namespace_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_runner_namespaces" ADD CONSTRAINT "ci_runner_namespaces_runner_id_ci_runners_id_fk" FOREIGN KEY ("runner_id") REFERENCES "public"."ci_runners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_runner_namespaces" ADD CONSTRAINT "ci_runner_namespaces_namespace_id_namespaces_id_fk" FOREIGN KEY ("namespace_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_runner_projects" ADD CONSTRAINT "ci_runner_projects_runner_id_ci_runners_id_fk" FOREIGN KEY ("runner_id") REFERENCES "public"."ci_runners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_runner_projects" ADD CONSTRAINT "ci_runner_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_stages" ADD CONSTRAINT "ci_stages_pipeline_id_ci_pipelines_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "public"."ci_pipelines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_variables" ADD CONSTRAINT "ci_variables_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_ci_builds_pending_claim" ON "ci_builds" USING btree ("id") WHERE "ci_builds"."status" = 'pending' AND "ci_builds"."type" = 'build';--> statement-breakpoint
CREATE INDEX "index_ci_builds_on_pipeline_id_and_retried_and_stage_idx" ON "ci_builds" USING btree ("pipeline_id","retried","stage_idx");--> statement-breakpoint
CREATE INDEX "index_ci_builds_on_project_id_and_id" ON "ci_builds" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_ci_builds_on_status_and_updated_at" ON "ci_builds" USING btree ("status","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_builds_on_token_digest" ON "ci_builds" USING btree ("token_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_job_artifacts_on_job_id_and_file_type" ON "ci_job_artifacts" USING btree ("job_id","file_type");--> statement-breakpoint
CREATE INDEX "index_ci_pipeline_variables_on_pipeline_id" ON "ci_pipeline_variables" USING btree ("pipeline_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_pipelines_on_project_id_and_iid" ON "ci_pipelines" USING btree ("project_id","iid");--> statement-breakpoint
CREATE INDEX "index_ci_pipelines_on_project_id_and_id" ON "ci_pipelines" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_ci_pipelines_on_project_id_and_sha" ON "ci_pipelines" USING btree ("project_id","sha");--> statement-breakpoint
CREATE INDEX "index_ci_pipelines_on_project_id_and_ref_and_id" ON "ci_pipelines" USING btree ("project_id","ref","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_pipelines_on_push_event_id" ON "ci_pipelines" USING btree ("push_event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_registration_tokens_on_token_digest" ON "ci_registration_tokens" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "index_ci_runner_namespaces_on_namespace_id" ON "ci_runner_namespaces" USING btree ("namespace_id");--> statement-breakpoint
CREATE INDEX "index_ci_runner_projects_on_project_id" ON "ci_runner_projects" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_runners_on_token_digest" ON "ci_runners" USING btree ("token_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_stages_on_pipeline_id_and_name" ON "ci_stages" USING btree ("pipeline_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_variables_on_project_id_key_scope" ON "ci_variables" USING btree ("project_id","key","environment_scope");--> statement-breakpoint
INSERT INTO "ci_queue_state" ("id", "version") VALUES (1, 0) ON CONFLICT DO NOTHING;
