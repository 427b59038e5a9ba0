CREATE TABLE "alert_management_alert_assignees" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_management_alert_assignees_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alert_id" integer NOT NULL,
	"user_id" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_management_alert_receipts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_management_alert_receipts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"integration_id" integer,
	"payload" jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "alert_management_alerts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_management_alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer NOT NULL,
	"issue_id" integer,
	"title" text NOT NULL,
	"description" text,
	"service" text,
	"monitoring_tool" text,
	"hosts" text[] DEFAULT '{}'::text[] NOT NULL,
	"severity" integer DEFAULT 0 NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"fingerprint" text,
	"events" integer DEFAULT 1 NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"ended_at" timestamp (3) with time zone,
	"environment" text,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_management_http_integrations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_management_http_integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"endpoint_identifier" text NOT NULL,
	"token" text NOT NULL,
	"payload_attribute_mapping" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_failures" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "import_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"job_id" integer,
	"relation_key" text,
	"source" text,
	"exception_class" text NOT NULL,
	"exception_message" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_incident_management_settings" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"create_issue" boolean DEFAULT false NOT NULL,
	"auto_close_incident" boolean DEFAULT true NOT NULL,
	"send_email" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_transfer_jobs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_transfer_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer,
	"status" text DEFAULT 'queued' NOT NULL,
	"description" text,
	"upload_url" text,
	"upload_method" text,
	"r2_key" text,
	"error" text,
	"correlation_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_management_alert_assignees" ADD CONSTRAINT "alert_management_alert_assignees_alert_id_alert_management_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alert_management_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_alert_assignees" ADD CONSTRAINT "alert_management_alert_assignees_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_alert_receipts" ADD CONSTRAINT "alert_management_alert_receipts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_alert_receipts" ADD CONSTRAINT "alert_management_alert_receipts_integration_id_alert_management_http_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."alert_management_http_integrations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_alerts" ADD CONSTRAINT "alert_management_alerts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_alerts" ADD CONSTRAINT "alert_management_alerts_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_management_http_integrations" ADD CONSTRAINT "alert_management_http_integrations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_failures" ADD CONSTRAINT "import_failures_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_failures" ADD CONSTRAINT "import_failures_job_id_project_transfer_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."project_transfer_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_incident_management_settings" ADD CONSTRAINT "project_incident_management_settings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_transfer_jobs" ADD CONSTRAINT "project_transfer_jobs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_transfer_jobs" ADD CONSTRAINT "project_transfer_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_alert_assignees_on_alert_and_user" ON "alert_management_alert_assignees" USING btree ("alert_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_alert_management_alerts_on_project_id_and_iid" ON "alert_management_alerts" USING btree ("project_id","iid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_partial_am_alerts_on_project_id_and_fingerprint" ON "alert_management_alerts" USING btree ("project_id","fingerprint") WHERE status <> 2;--> statement-breakpoint
CREATE INDEX "index_alert_management_alerts_on_project_id_and_status" ON "alert_management_alerts" USING btree ("project_id","status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_http_integrations_on_project_and_endpoint" ON "alert_management_http_integrations" USING btree ("project_id","endpoint_identifier");--> statement-breakpoint
CREATE INDEX "index_import_failures_on_project_id" ON "import_failures" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_project_transfer_jobs_on_project_and_kind" ON "project_transfer_jobs" USING btree ("project_id","kind","id");