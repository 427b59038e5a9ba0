CREATE TABLE "packages_pypi_metadata" (
	"package_id" integer PRIMARY KEY NOT NULL,
	"required_python" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_manifests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "container_manifests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"repository_id" integer NOT NULL,
	"digest" text NOT NULL,
	"media_type" text NOT NULL,
	"payload" text NOT NULL,
	"total_size" bigint DEFAULT 0 NOT NULL,
	"config_digest" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_registry_keys" (
	"id" integer PRIMARY KEY NOT NULL,
	"private_jwk" jsonb NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_repositories" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "container_repositories_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_repository_blobs" (
	"repository_id" integer NOT NULL,
	"digest" text NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "container_repository_blobs_repository_id_digest_pk" PRIMARY KEY("repository_id","digest")
);
--> statement-breakpoint
CREATE TABLE "container_tags" (
	"repository_id" integer NOT NULL,
	"name" text NOT NULL,
	"manifest_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "container_tags_repository_id_name_pk" PRIMARY KEY("repository_id","name")
);
--> statement-breakpoint
CREATE TABLE "container_uploads" (
	"uuid" text PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"repository_name" text NOT NULL,
	"parts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "container_registry_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "packages_pypi_metadata" ADD CONSTRAINT "packages_pypi_metadata_package_id_packages_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."packages_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_manifests" ADD CONSTRAINT "container_manifests_repository_id_container_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."container_repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_repositories" ADD CONSTRAINT "container_repositories_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_repository_blobs" ADD CONSTRAINT "container_repository_blobs_repository_id_container_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."container_repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_tags" ADD CONSTRAINT "container_tags_repository_id_container_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."container_repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_tags" ADD CONSTRAINT "container_tags_manifest_id_container_manifests_id_fk" FOREIGN KEY ("manifest_id") REFERENCES "public"."container_manifests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_uploads" ADD CONSTRAINT "container_uploads_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_container_manifests_on_repository_id_and_digest" ON "container_manifests" USING btree ("repository_id","digest");--> statement-breakpoint
CREATE UNIQUE INDEX "index_container_repositories_on_project_id_and_name" ON "container_repositories" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "index_container_repository_blobs_on_digest" ON "container_repository_blobs" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "index_container_tags_on_manifest_id" ON "container_tags" USING btree ("manifest_id");--> statement-breakpoint
CREATE INDEX "index_container_uploads_on_created_at" ON "container_uploads" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "index_packages_on_project_id_name_version_unique_pypi" ON "packages_packages" USING btree ("project_id","name","version") WHERE package_type = 'pypi' AND status <> 'pending_destruction';