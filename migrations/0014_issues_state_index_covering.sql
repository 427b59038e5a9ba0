-- Issue 9: the labelled instance-wide list (`GET /issues?scope=all&labels=a,b&state=opened`) counts its
-- matches (capped at 10,001) from this index alone. The same key (state, created_at, id) now carries the
-- columns that list filters on, so both the page and the capped count are index-only scans that stop at
-- their limit, instead of a bitmap of every issue carrying each label (the GIN index: its cost grows with
-- the table) and then thousands of heap pages. Same name and key, so the Drizzle schema still describes it.
DROP INDEX IF EXISTS "index_issues_on_state_and_created_at";--> statement-breakpoint
CREATE INDEX "index_issues_on_state_and_created_at" ON "issues" USING btree ("state", "created_at", "id") INCLUDE ("project_id", "issue_type", "label_ids");
