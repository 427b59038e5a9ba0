CREATE TABLE "ci_group_variables" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_group_variables_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"variable_type" text DEFAULT 'env_var' NOT NULL,
	"protected" boolean DEFAULT false NOT NULL,
	"masked" boolean DEFAULT false NOT NULL,
	"raw" boolean DEFAULT false NOT NULL,
	"environment_scope" text DEFAULT '*' NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_instance_variables" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_instance_variables_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"value" text NOT NULL,
	"variable_type" text DEFAULT 'env_var' NOT NULL,
	"protected" boolean DEFAULT false NOT NULL,
	"masked" boolean DEFAULT false NOT NULL,
	"raw" boolean DEFAULT false NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_pipeline_schedule_variables" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_pipeline_schedule_variables_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"pipeline_schedule_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"variable_type" text DEFAULT 'env_var' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_pipeline_schedules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_pipeline_schedules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"owner_id" integer,
	"description" text,
	"ref" text,
	"cron" text NOT NULL,
	"cron_timezone" text DEFAULT 'UTC' NOT NULL,
	"next_run_at" timestamp (3) with time zone,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_triggers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ci_triggers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"owner_id" integer,
	"description" text,
	"token" text NOT NULL,
	"last_used" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ci_pipelines" ADD COLUMN "pipeline_schedule_id" integer;--> statement-breakpoint
ALTER TABLE "ci_pipelines" ADD COLUMN "trigger_id" integer;--> statement-breakpoint
ALTER TABLE "ci_group_variables" ADD CONSTRAINT "ci_group_variables_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipeline_schedule_variables" ADD CONSTRAINT "ci_pipeline_schedule_variables_pipeline_schedule_id_ci_pipeline_schedules_id_fk" FOREIGN KEY ("pipeline_schedule_id") REFERENCES "public"."ci_pipeline_schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipeline_schedules" ADD CONSTRAINT "ci_pipeline_schedules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_pipeline_schedules" ADD CONSTRAINT "ci_pipeline_schedules_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_triggers" ADD CONSTRAINT "ci_triggers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_triggers" ADD CONSTRAINT "ci_triggers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_group_variables_on_group_id_key_scope" ON "ci_group_variables" USING btree ("group_id","key","environment_scope");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_instance_variables_on_key" ON "ci_instance_variables" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_pipeline_schedule_variables_on_schedule_id_and_key" ON "ci_pipeline_schedule_variables" USING btree ("pipeline_schedule_id","key");--> statement-breakpoint
CREATE INDEX "index_ci_pipeline_schedules_on_project_id" ON "ci_pipeline_schedules" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "index_ci_pipeline_schedules_on_next_run_at" ON "ci_pipeline_schedules" USING btree ("next_run_at") WHERE "ci_pipeline_schedules"."active";--> statement-breakpoint
CREATE UNIQUE INDEX "index_ci_triggers_on_token" ON "ci_triggers" USING btree ("token");--> statement-breakpoint
CREATE INDEX "index_ci_triggers_on_project_id" ON "ci_triggers" USING btree ("project_id");