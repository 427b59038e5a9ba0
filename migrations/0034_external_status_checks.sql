CREATE TABLE "external_status_checks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "external_status_checks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"external_url" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "external_status_checks_protected_branches" (
	"external_status_check_id" integer NOT NULL,
	"protected_branch_id" integer NOT NULL,
	CONSTRAINT "external_status_checks_protected_branches_pkey" PRIMARY KEY("external_status_check_id","protected_branch_id")
);
--> statement-breakpoint
CREATE TABLE "status_check_responses" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "status_check_responses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merge_request_id" integer NOT NULL,
	"external_status_check_id" integer NOT NULL,
	"sha" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_status_checks" ADD CONSTRAINT "external_status_checks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_status_checks_protected_branches" ADD CONSTRAINT "external_status_checks_protected_branches_external_status_check_id_external_status_checks_id_fk" FOREIGN KEY ("external_status_check_id") REFERENCES "public"."external_status_checks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_status_checks_protected_branches" ADD CONSTRAINT "external_status_checks_protected_branches_protected_branch_id_protected_branches_id_fk" FOREIGN KEY ("protected_branch_id") REFERENCES "public"."protected_branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_check_responses" ADD CONSTRAINT "status_check_responses_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_check_responses" ADD CONSTRAINT "status_check_responses_external_status_check_id_external_status_checks_id_fk" FOREIGN KEY ("external_status_check_id") REFERENCES "public"."external_status_checks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_external_status_checks_on_project_id_and_name" ON "external_status_checks" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "index_external_status_checks_on_project_id_and_external_url" ON "external_status_checks" USING btree ("project_id","external_url");--> statement-breakpoint
CREATE INDEX "index_status_check_responses_on_mr_id_check_id_sha" ON "status_check_responses" USING btree ("merge_request_id","external_status_check_id","sha");