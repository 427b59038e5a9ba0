CREATE TABLE "issue_counts" (
	"project_id" integer NOT NULL,
	"state" text NOT NULL,
	"issue_type" text NOT NULL,
	"confidential" boolean NOT NULL,
	"label_ids" integer[] NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "issue_counts_pkey" PRIMARY KEY("project_id","state","issue_type","confidential","label_ids")
);
--> statement-breakpoint

-- hand-written: the one writer of `issue_counts`. Statement triggers on `issues` with transition
-- tables add each statement's net change per (project, state, type, confidentiality, sorted label
-- set) in that statement's transaction, so whatever writes issues (the API, imports, moves, the
-- label_links trigger, a project's cascade, a TRUNCATE) keeps the counts exact. An UPDATE that changes none of the
-- key columns (notes count, title, updated_at) nets to nothing and writes nothing. Keys are upserted in
-- key order, so two statements lock shared rows in the same order.
CREATE TYPE issue_count_delta AS (project_id integer, state text, issue_type text, confidential boolean, label_ids integer[], delta integer);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION issue_counts_apply(changes issue_count_delta[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  emptied integer[];
BEGIN
  IF cardinality(changes) = 0 THEN
    RETURN;
  END IF;
  WITH keyed AS (
    SELECT c.project_id, c.state, c.issue_type, c.confidential,
           ARRAY(SELECT DISTINCT l FROM unnest(c.label_ids) AS l ORDER BY l) AS label_ids, c.delta
    FROM unnest(changes) AS c
  ), summed AS (
    SELECT project_id, state, issue_type, confidential, label_ids, sum(delta)::integer AS delta
    FROM keyed GROUP BY project_id, state, issue_type, confidential, label_ids HAVING sum(delta) <> 0
  ), upserted AS (
    INSERT INTO issue_counts AS ic (project_id, state, issue_type, confidential, label_ids, count)
    SELECT project_id, state, issue_type, confidential, label_ids, delta FROM summed
    ORDER BY project_id, state, issue_type, confidential, label_ids
    ON CONFLICT (project_id, state, issue_type, confidential, label_ids) DO UPDATE SET count = ic.count + EXCLUDED.count
    RETURNING ic.project_id, ic.count
  )
  SELECT array_agg(DISTINCT project_id) FILTER (WHERE count = 0) INTO emptied FROM upserted;
  IF emptied IS NOT NULL THEN
    DELETE FROM issue_counts WHERE project_id = ANY(emptied) AND count = 0;
  END IF;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION issue_counts_on_issues_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM issue_counts;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM issue_counts_apply(ARRAY(
      SELECT ROW(project_id, state, issue_type, confidential, label_ids, count(*))::issue_count_delta
      FROM new_issues GROUP BY project_id, state, issue_type, confidential, label_ids));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM issue_counts_apply(ARRAY(
      SELECT ROW(project_id, state, issue_type, confidential, label_ids, -count(*))::issue_count_delta
      FROM old_issues GROUP BY project_id, state, issue_type, confidential, label_ids));
  ELSE
    PERFORM issue_counts_apply(ARRAY(
      SELECT ROW(project_id, state, issue_type, confidential, label_ids, sum(delta))::issue_count_delta
      FROM (SELECT project_id, state, issue_type, confidential, label_ids, 1 AS delta FROM new_issues
            UNION ALL SELECT project_id, state, issue_type, confidential, label_ids, -1 FROM old_issues) AS changed
      GROUP BY project_id, state, issue_type, confidential, label_ids HAVING sum(delta) <> 0));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER issues_counts_insert AFTER INSERT ON issues REFERENCING NEW TABLE AS new_issues
  FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_on_issues_change();
--> statement-breakpoint
CREATE TRIGGER issues_counts_update AFTER UPDATE ON issues REFERENCING OLD TABLE AS old_issues NEW TABLE AS new_issues
  FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_on_issues_change();
--> statement-breakpoint
CREATE TRIGGER issues_counts_delete AFTER DELETE ON issues REFERENCING OLD TABLE AS old_issues
  FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_on_issues_change();
--> statement-breakpoint
CREATE TRIGGER issues_counts_truncate AFTER TRUNCATE ON issues
  FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_on_issues_change();
--> statement-breakpoint
INSERT INTO issue_counts (project_id, state, issue_type, confidential, label_ids, count)
SELECT project_id, state, issue_type, confidential, label_ids, count(*)::integer
FROM (SELECT project_id, state, issue_type, confidential, ARRAY(SELECT DISTINCT l FROM unnest(label_ids) AS l ORDER BY l) AS label_ids FROM issues) AS keyed
GROUP BY project_id, state, issue_type, confidential, label_ids;
