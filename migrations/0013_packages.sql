CREATE TABLE "packages_npm_metadata" (
	"package_id" integer PRIMARY KEY NOT NULL,
	"package_json" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "packages_package_files" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "packages_package_files_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"package_id" integer NOT NULL,
	"file_name" text NOT NULL,
	"size" bigint NOT NULL,
	"file_md5" text,
	"file_sha1" text,
	"file_sha256" text,
	"file_store" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "packages_tags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "packages_tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"package_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "packages_packages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "packages_packages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"creator_id" integer,
	"name" text NOT NULL,
	"version" text,
	"package_type" text NOT NULL,
	"status" text DEFAULT 'default' NOT NULL,
	"last_downloaded_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "packages_npm_metadata" ADD CONSTRAINT "packages_npm_metadata_package_id_packages_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_package_files" ADD CONSTRAINT "packages_package_files_package_id_packages_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_tags" ADD CONSTRAINT "packages_tags_package_id_packages_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_tags" ADD CONSTRAINT "packages_tags_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_packages" ADD CONSTRAINT "packages_packages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packages_packages" ADD CONSTRAINT "packages_packages_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_packages_package_files_on_package_id_and_file_name" ON "packages_package_files" USING btree ("package_id","file_name","id");--> statement-breakpoint
CREATE INDEX "index_packages_tags_on_package_id" ON "packages_tags" USING btree ("package_id");--> statement-breakpoint
CREATE INDEX "index_packages_on_project_id_and_created_at" ON "packages_packages" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "index_packages_on_project_id_and_name_and_version" ON "packages_packages" USING btree ("project_id","package_type","name","version");--> statement-breakpoint
CREATE UNIQUE INDEX "index_packages_on_project_id_name_version_unique_npm" ON "packages_packages" USING btree ("project_id","name","version") WHERE package_type = 'npm' AND status <> 'pending_destruction';