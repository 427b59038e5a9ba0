CREATE TABLE "environments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "environments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"external_url" text,
	"state" text DEFAULT 'available' NOT NULL,
	"tier" text DEFAULT 'other' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_feature_flag_scopes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_feature_flag_scopes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"feature_flag_id" integer NOT NULL,
	"active" boolean NOT NULL,
	"environment_scope" text DEFAULT '*' NOT NULL,
	"strategies" jsonb DEFAULT '[{"name":"default","parameters":{}}]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_feature_flags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_feature_flags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"iid" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"active" boolean DEFAULT true NOT NULL,
	"version" text DEFAULT 'new_version_flag' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_feature_flags_clients" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_feature_flags_clients_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"token" text NOT NULL,
	"last_feature_flag_updated_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "operations_scopes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_scopes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"strategy_id" integer NOT NULL,
	"environment_scope" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_strategies" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_strategies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"feature_flag_id" integer NOT NULL,
	"name" text NOT NULL,
	"parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"user_list_id" integer
);
--> statement-breakpoint
CREATE TABLE "operations_unleash_clients" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_unleash_clients_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"app_name" text NOT NULL,
	"instance_id" text NOT NULL,
	"sdk_version" text,
	"strategies" text[] DEFAULT '{}'::text[] NOT NULL,
	"interval" integer,
	"started_at" timestamp (3) with time zone,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_unleash_metrics" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_unleash_metrics_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"app_name" text NOT NULL,
	"feature_name" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"yes" integer DEFAULT 0 NOT NULL,
	"no" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_user_lists" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "operations_user_lists_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"iid" integer NOT NULL,
	"name" text NOT NULL,
	"user_xids" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "environments" ADD CONSTRAINT "environments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_feature_flag_scopes" ADD CONSTRAINT "operations_feature_flag_scopes_feature_flag_id_operations_feature_flags_id_fk" FOREIGN KEY ("feature_flag_id") REFERENCES "public"."operations_feature_flags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_feature_flags" ADD CONSTRAINT "operations_feature_flags_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_feature_flags_clients" ADD CONSTRAINT "operations_feature_flags_clients_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_scopes" ADD CONSTRAINT "operations_scopes_strategy_id_operations_strategies_id_fk" FOREIGN KEY ("strategy_id") REFERENCES "public"."operations_strategies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_strategies" ADD CONSTRAINT "operations_strategies_feature_flag_id_operations_feature_flags_id_fk" FOREIGN KEY ("feature_flag_id") REFERENCES "public"."operations_feature_flags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_strategies" ADD CONSTRAINT "operations_strategies_user_list_id_operations_user_lists_id_fk" FOREIGN KEY ("user_list_id") REFERENCES "public"."operations_user_lists"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_unleash_clients" ADD CONSTRAINT "operations_unleash_clients_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_unleash_metrics" ADD CONSTRAINT "operations_unleash_metrics_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operations_user_lists" ADD CONSTRAINT "operations_user_lists_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_environments_on_project_id_and_name" ON "environments" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_environments_on_project_id_and_slug" ON "environments" USING btree ("project_id","slug");--> statement-breakpoint
CREATE INDEX "index_environments_on_project_id_and_state_and_id" ON "environments" USING btree ("project_id","state","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_feature_flag_scopes_on_flag_id_and_environment_scope" ON "operations_feature_flag_scopes" USING btree ("feature_flag_id","environment_scope");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_feature_flags_on_project_id_and_name" ON "operations_feature_flags" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_feature_flags_on_project_id_and_iid" ON "operations_feature_flags" USING btree ("project_id","iid");--> statement-breakpoint
CREATE INDEX "index_operations_feature_flags_on_project_id_and_active" ON "operations_feature_flags" USING btree ("project_id","active","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_feature_flags_clients_on_project_id" ON "operations_feature_flags_clients" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_feature_flags_clients_on_token" ON "operations_feature_flags_clients" USING btree ("token");--> statement-breakpoint
CREATE INDEX "index_operations_scopes_on_strategy_id" ON "operations_scopes" USING btree ("strategy_id");--> statement-breakpoint
CREATE INDEX "index_operations_strategies_on_feature_flag_id" ON "operations_strategies" USING btree ("feature_flag_id");--> statement-breakpoint
CREATE INDEX "index_operations_strategies_on_user_list_id" ON "operations_strategies" USING btree ("user_list_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_unleash_clients_on_project_app_instance" ON "operations_unleash_clients" USING btree ("project_id","app_name","instance_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_unleash_metrics_on_project_app_feature_hour" ON "operations_unleash_metrics" USING btree ("project_id","app_name","feature_name","hour");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_user_lists_on_project_id_and_name" ON "operations_user_lists" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_operations_user_lists_on_project_id_and_iid" ON "operations_user_lists" USING btree ("project_id","iid");