CREATE TABLE "lfs_objects" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lfs_objects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"oid" varchar(255) NOT NULL,
	"size" bigint NOT NULL,
	"file" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lfs_objects_projects" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lfs_objects_projects_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"lfs_object_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"repository_type" smallint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ALTER COLUMN "access_level" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ADD COLUMN "user_id" integer;--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ADD COLUMN "group_id" integer;--> statement-breakpoint
ALTER TABLE "lfs_objects_projects" ADD CONSTRAINT "lfs_objects_projects_lfs_object_id_lfs_objects_id_fk" FOREIGN KEY ("lfs_object_id") REFERENCES "public"."lfs_objects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lfs_objects_projects" ADD CONSTRAINT "lfs_objects_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_lfs_objects_on_oid" ON "lfs_objects" USING btree ("oid");--> statement-breakpoint
CREATE UNIQUE INDEX "index_lfs_objects_projects_on_project_id_and_lfs_object_id" ON "lfs_objects_projects" USING btree ("project_id","lfs_object_id");--> statement-breakpoint
CREATE INDEX "index_lfs_objects_projects_on_lfs_object_id" ON "lfs_objects_projects" USING btree ("lfs_object_id");--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ADD CONSTRAINT "protected_branch_access_levels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protected_branch_access_levels" ADD CONSTRAINT "protected_branch_access_levels_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;