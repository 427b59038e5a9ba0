-- hand-written: events_on_push_event_insert (0029) walked the pushed history with text ids joined to
-- git_commits.oid (char(40)): `c.oid = x.oid` compared as text, so no index served the join and every
-- step of the walk scanned all of the pool's commits (quadratic: the first push of a 10,000-commit
-- history spent minutes in this trigger). The walk's columns are char(40) now, as the column they join;
-- the function is otherwise unchanged.
CREATE OR REPLACE FUNCTION events_on_push_event_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  zero constant text := repeat('0', 40);
  is_branch boolean := NEW.ref LIKE 'refs/heads/%';
  ref_name text;
  pool integer;
  default_branch text;
  act smallint;
  base text;
  floor_gen integer := 0;
  head text;
  title text;
  cnt bigint := 0;
  ev bigint;
BEGIN
  IF NEW.user_id IS NULL OR NOT (NEW.ref LIKE 'refs/heads/%' OR NEW.ref LIKE 'refs/tags/%') THEN RETURN NULL; END IF;
  ref_name := CASE WHEN is_branch THEN substr(NEW.ref, 12) ELSE substr(NEW.ref, 11) END;
  SELECT COALESCE(p.pool_id, p.id), p.default_branch INTO pool, default_branch FROM projects p WHERE p.id = NEW.project_id;
  IF pool IS NULL THEN RETURN NULL; END IF;
  act := CASE WHEN NEW.before = zero THEN 0 WHEN NEW.after = zero THEN 1 ELSE 2 END;
  IF act <> 1 THEN
    head := NEW.after;
    IF NOT is_branch THEN
      -- An annotated tag names a tag object: its commit is the ref's peeled target.
      SELECT COALESCE(r.peeled, r.target) INTO head FROM git_refs r WHERE r.project_id = NEW.project_id AND r.name = NEW.ref AND r.target = NEW.after;
      head := COALESCE(head, NEW.after);
      cnt := CASE WHEN EXISTS (SELECT 1 FROM git_commits c WHERE c.pool_id = pool AND c.oid = head) THEN 1 ELSE 0 END;
    ELSE
      IF act = 2 THEN
        base := NEW.before;
      ELSIF default_branch IS NOT NULL AND default_branch <> ref_name THEN
        SELECT r.target INTO base FROM git_refs r WHERE r.project_id = NEW.project_id AND r.name = 'refs/heads/' || default_branch;
      END IF;
      IF base IS NOT NULL THEN
        SELECT GREATEST(c.generation - 1000, 0) INTO floor_gen FROM git_commits c WHERE c.pool_id = pool AND c.oid = base;
        floor_gen := COALESCE(floor_gen, 0);
      END IF;
      WITH RECURSIVE
        excluded(oid) AS (
          SELECT base::char(40) WHERE base IS NOT NULL
          UNION
          SELECT p.oid::char(40) FROM excluded x JOIN git_commits c ON c.pool_id = pool AND c.oid = x.oid AND c.generation > floor_gen
            CROSS JOIN LATERAL unnest(c.parents) AS p(oid)
        ),
        included(oid) AS (
          SELECT NEW.after::char(40) WHERE NOT EXISTS (SELECT 1 FROM excluded e WHERE e.oid = NEW.after)
          UNION
          SELECT p.oid::char(40) FROM included x JOIN git_commits c ON c.pool_id = pool AND c.oid = x.oid AND c.generation > floor_gen
            CROSS JOIN LATERAL unnest(c.parents) AS p(oid)
            WHERE NOT EXISTS (SELECT 1 FROM excluded e WHERE e.oid = p.oid::char(40))
        )
      SELECT count(*) INTO cnt FROM included i JOIN git_commits c ON c.pool_id = pool AND c.oid = i.oid;
    END IF;
    SELECT left(split_part(c.message, E'\n', 1), 70) INTO title FROM git_commits c WHERE c.pool_id = pool AND c.oid = head;
  END IF;
  INSERT INTO events (project_id, author_id, action) VALUES (NEW.project_id, NEW.user_id, 5) RETURNING id INTO ev;
  INSERT INTO push_event_payloads (event_id, commit_count, action, ref_type, commit_from, commit_to, ref, commit_title)
    VALUES (ev, cnt, act, CASE WHEN is_branch THEN 0 ELSE 1 END,
      CASE WHEN act = 0 THEN NULL ELSE NEW.before END, CASE WHEN act = 1 THEN NULL ELSE NEW.after END, ref_name, title);
  RETURN NULL;
END
$$;
