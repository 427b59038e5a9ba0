CREATE TABLE "pages_deployments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pages_deployments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"ci_build_id" integer,
	"r2_prefix" text NOT NULL,
	"file_count" integer DEFAULT 0 NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pages_domains" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pages_domains_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"domain" text NOT NULL,
	"certificate" text,
	"key" text,
	"certificate_source" text DEFAULT 'user_provided' NOT NULL,
	"certificate_valid_not_before" timestamp (3) with time zone,
	"certificate_valid_not_after" timestamp (3) with time zone,
	"certificate_subject" text,
	"verification_code" text NOT NULL,
	"verified_at" timestamp (3) with time zone,
	"enabled_until" timestamp (3) with time zone,
	"auto_ssl_enabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_pages_metadata" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"deployed" boolean DEFAULT false NOT NULL,
	"pages_deployment_id" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "pages_access_level" text DEFAULT 'enabled' NOT NULL;--> statement-breakpoint
ALTER TABLE "pages_deployments" ADD CONSTRAINT "pages_deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pages_deployments" ADD CONSTRAINT "pages_deployments_ci_build_id_ci_builds_id_fk" FOREIGN KEY ("ci_build_id") REFERENCES "public"."ci_builds"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pages_domains" ADD CONSTRAINT "pages_domains_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_pages_metadata" ADD CONSTRAINT "project_pages_metadata_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_pages_metadata" ADD CONSTRAINT "project_pages_metadata_pages_deployment_id_pages_deployments_id_fk" FOREIGN KEY ("pages_deployment_id") REFERENCES "public"."pages_deployments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_pages_deployments_on_project_id" ON "pages_deployments" USING btree ("project_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_pages_domains_on_lower_domain" ON "pages_domains" USING btree (lower("domain"));--> statement-breakpoint
CREATE INDEX "index_pages_domains_on_project_id" ON "pages_domains" USING btree ("project_id");