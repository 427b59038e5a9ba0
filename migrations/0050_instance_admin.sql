CREATE TABLE "broadcast_messages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "broadcast_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"message" text NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"color" text,
	"font" text,
	"target_access_levels" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"target_path" text,
	"broadcast_type" text DEFAULT 'banner' NOT NULL,
	"dismissable" boolean,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feature_gates" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "feature_gates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"feature_key" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "features" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_daily_statistics" (
	"project_id" integer NOT NULL,
	"date" date NOT NULL,
	"fetch_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "project_daily_statistics_project_id_date_pk" PRIMARY KEY("project_id","date")
);
--> statement-breakpoint
CREATE TABLE "push_rules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "push_rules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"group_id" integer,
	"commit_message_regex" text,
	"commit_message_negative_regex" text,
	"branch_name_regex" text,
	"author_email_regex" text,
	"file_name_regex" text,
	"max_file_size" integer DEFAULT 0 NOT NULL,
	"deny_delete_tag" boolean DEFAULT false NOT NULL,
	"member_check" boolean DEFAULT false NOT NULL,
	"prevent_secrets" boolean DEFAULT false NOT NULL,
	"commit_committer_check" boolean DEFAULT false NOT NULL,
	"reject_unsigned_commits" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "queue_metrics" (
	"queue" text PRIMARY KEY NOT NULL,
	"enqueued" bigint DEFAULT 0 NOT NULL,
	"processed" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"retried" bigint DEFAULT 0 NOT NULL,
	"busy" integer DEFAULT 0 NOT NULL,
	"latency_ms" bigint DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "feature_gates" ADD CONSTRAINT "feature_gates_feature_key_features_key_fk" FOREIGN KEY ("feature_key") REFERENCES "public"."features"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_daily_statistics" ADD CONSTRAINT "project_daily_statistics_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_rules" ADD CONSTRAINT "push_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_rules" ADD CONSTRAINT "push_rules_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_feature_gates_on_feature_key_and_key_and_value" ON "feature_gates" USING btree ("feature_key","key","value");--> statement-breakpoint
CREATE INDEX "index_project_daily_statistics_on_date" ON "project_daily_statistics" USING btree ("date");--> statement-breakpoint
CREATE UNIQUE INDEX "index_push_rules_on_project_id" ON "push_rules" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_push_rules_on_group_id" ON "push_rules" USING btree ("group_id");