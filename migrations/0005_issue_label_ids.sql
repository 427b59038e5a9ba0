ALTER TABLE "issues" ADD COLUMN "label_ids" integer[] DEFAULT '{}'::integer[] NOT NULL;--> statement-breakpoint
CREATE INDEX "index_issues_on_label_ids" ON "issues" USING gin ("label_ids");