CREATE TABLE "emails" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "emails_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"email" text NOT NULL,
	"confirmed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gpg_keys" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gpg_keys_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"primary_keyid" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_custom_attributes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_custom_attributes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_statuses" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"emoji" text DEFAULT 'speech_balloon' NOT NULL,
	"message" text,
	"availability" smallint DEFAULT 0 NOT NULL,
	"clear_status_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "personal_access_tokens" ADD COLUMN "impersonation" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gpg_keys" ADD CONSTRAINT "gpg_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_custom_attributes" ADD CONSTRAINT "project_custom_attributes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_statuses" ADD CONSTRAINT "user_statuses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_emails_on_email" ON "emails" USING btree ("email");--> statement-breakpoint
CREATE INDEX "index_emails_on_user_id_and_id" ON "emails" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_gpg_keys_on_fingerprint" ON "gpg_keys" USING btree ("fingerprint");--> statement-breakpoint
CREATE UNIQUE INDEX "index_gpg_keys_on_primary_keyid" ON "gpg_keys" USING btree ("primary_keyid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_gpg_keys_on_key_md5" ON "gpg_keys" USING btree (md5("key"));--> statement-breakpoint
CREATE INDEX "index_gpg_keys_on_user_id_and_id" ON "gpg_keys" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_project_custom_attributes_on_project_id_and_key" ON "project_custom_attributes" USING btree ("project_id","key");