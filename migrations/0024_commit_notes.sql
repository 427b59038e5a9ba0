ALTER TABLE "notes" ALTER COLUMN "noteable_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "commit_id" text;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "line_code" text;--> statement-breakpoint
CREATE INDEX "index_notes_on_commit_id" ON "notes" USING btree ("project_id","commit_id") WHERE "notes"."commit_id" IS NOT NULL;