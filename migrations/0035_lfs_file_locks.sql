CREATE TABLE "lfs_file_locks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lfs_file_locks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"path" varchar(511) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "lfs_enabled" boolean;--> statement-breakpoint
ALTER TABLE "lfs_file_locks" ADD CONSTRAINT "lfs_file_locks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lfs_file_locks" ADD CONSTRAINT "lfs_file_locks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_lfs_file_locks_on_project_id_and_path" ON "lfs_file_locks" USING btree ("project_id","path");--> statement-breakpoint
CREATE INDEX "index_lfs_file_locks_on_user_id" ON "lfs_file_locks" USING btree ("user_id");