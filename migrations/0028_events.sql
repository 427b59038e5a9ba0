CREATE TABLE "events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" integer,
	"author_id" integer NOT NULL,
	"target_type" text,
	"target_id" integer,
	"action" smallint NOT NULL,
	"group_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_event_payloads" (
	"event_id" bigint PRIMARY KEY NOT NULL,
	"commit_count" bigint NOT NULL,
	"action" smallint NOT NULL,
	"ref_type" smallint NOT NULL,
	"commit_from" char(40) COLLATE "C",
	"commit_to" char(40) COLLATE "C",
	"ref" text,
	"commit_title" text,
	"ref_count" integer
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "uploads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"size" bigint NOT NULL,
	"path" text NOT NULL,
	"checksum" text NOT NULL,
	"model_type" text NOT NULL,
	"model_id" integer NOT NULL,
	"uploader" text NOT NULL,
	"secret" text NOT NULL,
	"content_type" text,
	"r2_key" text NOT NULL,
	"uploaded_by_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_event_payloads" ADD CONSTRAINT "push_event_payloads_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_model_id_projects_id_fk" FOREIGN KEY ("model_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_uploaded_by_id_users_id_fk" FOREIGN KEY ("uploaded_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_events_on_project_id_and_id" ON "events" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_events_on_author_id_and_id" ON "events" USING btree ("author_id","id");--> statement-breakpoint
CREATE INDEX "index_events_on_target_type_and_target_id" ON "events" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_uploads_on_model_and_path" ON "uploads" USING btree ("model_type","model_id","path");--> statement-breakpoint
CREATE INDEX "index_uploads_on_uploaded_by_id" ON "uploads" USING btree ("uploaded_by_id");