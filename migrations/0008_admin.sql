CREATE TABLE "billable_member_refreshes" (
	"root_group_id" integer PRIMARY KEY NOT NULL,
	"refreshed_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billable_members" (
	"root_group_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"max_access_level" integer NOT NULL,
	"membership_type" text NOT NULL,
	"joined_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "billable_members_root_group_id_user_id_pk" PRIMARY KEY("root_group_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "historical_data" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "historical_data_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"recorded_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"active_user_count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "licenses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "licenses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"data" text,
	"built_in" boolean DEFAULT false NOT NULL,
	"plan" text NOT NULL,
	"licensee" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"starts_at" date NOT NULL,
	"expires_at" date,
	"user_limit" integer,
	"add_ons" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notification_settings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"source_type" text,
	"source_id" integer,
	"level" text NOT NULL,
	"events" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"notification_email" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deploy_keys_projects" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deploy_keys_projects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"deploy_key_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"can_push" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "keys" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "keys_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer,
	"type" text,
	"title" text NOT NULL,
	"key" text NOT NULL,
	"algorithm" text NOT NULL,
	"bits" integer NOT NULL,
	"fingerprint" text NOT NULL,
	"fingerprint_sha256" text NOT NULL,
	"usage_type" text DEFAULT 'auth_and_signing' NOT NULL,
	"public" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "application_settings" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "billable_member_refreshes" ADD CONSTRAINT "billable_member_refreshes_root_group_id_namespaces_id_fk" FOREIGN KEY ("root_group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billable_members" ADD CONSTRAINT "billable_members_root_group_id_namespaces_id_fk" FOREIGN KEY ("root_group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billable_members" ADD CONSTRAINT "billable_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_keys_projects" ADD CONSTRAINT "deploy_keys_projects_deploy_key_id_keys_id_fk" FOREIGN KEY ("deploy_key_id") REFERENCES "public"."keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deploy_keys_projects" ADD CONSTRAINT "deploy_keys_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "keys" ADD CONSTRAINT "keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_historical_data_on_recorded_at" ON "historical_data" USING btree ("recorded_at");--> statement-breakpoint
CREATE UNIQUE INDEX "index_notification_settings_on_user_and_source" ON "notification_settings" USING btree ("user_id","source_type","source_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_notification_settings_global_on_user_id" ON "notification_settings" USING btree ("user_id") WHERE source_type IS NULL;--> statement-breakpoint
CREATE INDEX "index_notification_settings_on_source" ON "notification_settings" USING btree ("source_type","source_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_deploy_keys_projects_on_project_id_and_deploy_key_id" ON "deploy_keys_projects" USING btree ("project_id","deploy_key_id");--> statement-breakpoint
CREATE INDEX "index_deploy_keys_projects_on_deploy_key_id" ON "deploy_keys_projects" USING btree ("deploy_key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_keys_on_fingerprint_sha256" ON "keys" USING btree ("fingerprint_sha256");--> statement-breakpoint
CREATE INDEX "index_keys_on_fingerprint" ON "keys" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "index_keys_on_user_id_and_id" ON "keys" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "index_keys_on_type_and_id" ON "keys" USING btree ("type","id");--> statement-breakpoint
-- A fresh instance carries a built-in Ultimate license without a user limit (spec 2: 4.5).
INSERT INTO "licenses" ("built_in", "plan", "licensee", "starts_at") VALUES (true, 'ultimate', '{"Name": "Edgeforge"}'::jsonb, CURRENT_DATE);
