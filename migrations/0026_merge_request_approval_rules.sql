CREATE TABLE "approval_merge_request_rules" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "approval_merge_request_rules_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merge_request_id" integer NOT NULL,
	"name" text NOT NULL,
	"approvals_required" integer DEFAULT 0 NOT NULL,
	"rule_type" text DEFAULT 'regular' NOT NULL,
	"approval_project_rule_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_merge_request_rules_groups" (
	"rule_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "approval_merge_request_rules_groups_rule_id_group_id_pk" PRIMARY KEY("rule_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "approval_merge_request_rules_users" (
	"rule_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "approval_merge_request_rules_users_rule_id_user_id_pk" PRIMARY KEY("rule_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "source_push_event_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules" ADD CONSTRAINT "approval_merge_request_rules_merge_request_id_merge_requests_id_fk" FOREIGN KEY ("merge_request_id") REFERENCES "public"."merge_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules" ADD CONSTRAINT "approval_merge_request_rules_approval_project_rule_id_approval_project_rules_id_fk" FOREIGN KEY ("approval_project_rule_id") REFERENCES "public"."approval_project_rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules_groups" ADD CONSTRAINT "approval_merge_request_rules_groups_rule_id_approval_merge_request_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."approval_merge_request_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules_groups" ADD CONSTRAINT "approval_merge_request_rules_groups_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules_users" ADD CONSTRAINT "approval_merge_request_rules_users_rule_id_approval_merge_request_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."approval_merge_request_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_merge_request_rules_users" ADD CONSTRAINT "approval_merge_request_rules_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_approval_merge_request_rules_on_mr_id_and_name" ON "approval_merge_request_rules" USING btree ("merge_request_id","name");