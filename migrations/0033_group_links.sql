CREATE TABLE "group_group_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "group_group_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"shared_group_id" integer NOT NULL,
	"shared_with_group_id" integer NOT NULL,
	"group_access" integer DEFAULT 30 NOT NULL,
	"expires_at" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_shared_group_id_namespaces_id_fk" FOREIGN KEY ("shared_group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_shared_with_group_id_namespaces_id_fk" FOREIGN KEY ("shared_with_group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_group_group_links_on_shared_group_and_shared_with_group" ON "group_group_links" USING btree ("shared_group_id","shared_with_group_id");--> statement-breakpoint
CREATE INDEX "index_group_group_links_on_shared_with_group_id" ON "group_group_links" USING btree ("shared_with_group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_milestones_on_group_id_and_iid" ON "milestones" USING btree ("group_id","iid") WHERE group_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "index_milestones_on_group_id_and_title" ON "milestones" USING btree ("group_id","title") WHERE group_id IS NOT NULL;