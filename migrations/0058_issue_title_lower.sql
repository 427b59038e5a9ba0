ALTER TABLE "issues" ADD COLUMN "title_lower" text GENERATED ALWAYS AS (lower(title)) STORED;--> statement-breakpoint
-- hand-written: the search matches a title through its stored lower-case copy (`title_lower LIKE lower(term)`,
-- the definition of `title ILIKE term` in a UTF-8 database), so its trigram index moves there; the rows the
-- index finds are checked with LIKE instead of lower-casing each title again (issue 29: the cost of a term
-- on thousands of issues is that check, row by row). Descriptions keep ILIKE and their index (migration 0043).
CREATE INDEX index_issues_on_title_lower_trigram ON issues USING gin (title_lower gin_trgm_ops);
--> statement-breakpoint
DROP INDEX IF EXISTS index_issues_on_title_trigram;
