-- Before the index: of open merge requests that share target project, source project and both
-- branches (left by the old check-then-insert race), the oldest stays open and the rest are closed.
UPDATE "merge_requests" m SET "state" = 'closed', "closed_at" = now(), "updated_at" = now()
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "project_id", "source_project_id", "source_branch", "target_branch" ORDER BY "id") AS n
  FROM "merge_requests" WHERE "state" = 'opened'
) d
WHERE d."id" = m."id" AND d.n > 1;--> statement-breakpoint
CREATE UNIQUE INDEX "index_merge_requests_on_open_branches" ON "merge_requests" USING btree ("project_id","source_project_id","source_branch","target_branch") WHERE state = 'opened';