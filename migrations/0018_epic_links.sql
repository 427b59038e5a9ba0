CREATE TABLE "epic_issues" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "epic_issues_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"epic_id" integer NOT NULL,
	"issue_id" integer NOT NULL,
	"relative_position" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "epics" ADD COLUMN "start_date_is_fixed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "epics" ADD COLUMN "due_date_is_fixed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "epics" ADD COLUMN "closed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "epics" ADD COLUMN "closed_by_id" integer;--> statement-breakpoint
ALTER TABLE "epic_issues" ADD CONSTRAINT "epic_issues_epic_id_epics_id_fk" FOREIGN KEY ("epic_id") REFERENCES "public"."epics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "epic_issues" ADD CONSTRAINT "epic_issues_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_epic_issues_on_issue_id" ON "epic_issues" USING btree ("issue_id");--> statement-breakpoint
CREATE INDEX "index_epic_issues_on_epic_id" ON "epic_issues" USING btree ("epic_id");--> statement-breakpoint
ALTER TABLE "epics" ADD CONSTRAINT "epics_closed_by_id_users_id_fk" FOREIGN KEY ("closed_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_epics_on_parent_id" ON "epics" USING btree ("parent_id");--> statement-breakpoint
-- Hand-written: deleting an epic deletes its child epics, as GitLab's fk on epics.parent_id (ON DELETE CASCADE).
ALTER TABLE "epics" ADD CONSTRAINT "fk_epics_parent_id" FOREIGN KEY ("parent_id") REFERENCES "public"."epics"("id") ON DELETE cascade;
