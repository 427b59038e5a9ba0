-- The one writer of `events` (GitLab's EventCreateService): AFTER triggers on the rows that cause an
-- event, so that no domain gains a second writer and no request sends an extra statement. Actions are
-- Event.actions' numbers: created 1, closed 3, reopened 4, pushed 5, commented 6, merged 7, joined 8,
-- left 9, approved 12. See docs/architecture.md "Events".

-- Projects::CreateService#create_project event: `created`, no target, by the creator.
CREATE OR REPLACE FUNCTION events_on_project_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.creator_id IS NOT NULL THEN
    INSERT INTO events (project_id, author_id, action) VALUES (NEW.id, NEW.creator_id, 1);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER projects_events AFTER INSERT ON projects FOR EACH ROW EXECUTE FUNCTION events_on_project_insert();
--> statement-breakpoint

-- open_issue / open_mr: `created` with the issuable as target, by its author.
CREATE OR REPLACE FUNCTION events_on_issuable_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.author_id IS NOT NULL THEN
    INSERT INTO events (project_id, author_id, target_type, target_id, action) VALUES (NEW.project_id, NEW.author_id, TG_ARGV[0], NEW.id, 1);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER issues_events AFTER INSERT ON issues FOR EACH ROW EXECUTE FUNCTION events_on_issuable_insert('Issue');
--> statement-breakpoint
CREATE TRIGGER merge_requests_events AFTER INSERT ON merge_requests FOR EACH ROW EXECUTE FUNCTION events_on_issuable_insert('MergeRequest');
--> statement-breakpoint

-- close_issue, reopen_issue, close_mr, reopen_mr, merge_mr: every state change of an issue or a merge
-- request writes a resource state event (shared/issuables/resource_events.ts), whose user is the actor.
CREATE OR REPLACE FUNCTION events_on_state_event_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  act smallint := CASE NEW.state WHEN 'closed' THEN 3 WHEN 'reopened' THEN 4 WHEN 'merged' THEN 7 END;
BEGIN
  IF act IS NULL OR NEW.user_id IS NULL THEN RETURN NULL; END IF;
  IF NEW.issue_id IS NOT NULL THEN
    INSERT INTO events (project_id, author_id, target_type, target_id, action)
      SELECT i.project_id, NEW.user_id, 'Issue', i.id, act FROM issues i WHERE i.id = NEW.issue_id;
  ELSIF NEW.merge_request_id IS NOT NULL THEN
    INSERT INTO events (project_id, author_id, target_type, target_id, action)
      SELECT m.project_id, NEW.user_id, 'MergeRequest', m.id, act FROM merge_requests m WHERE m.id = NEW.merge_request_id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER resource_state_events_events AFTER INSERT ON resource_state_events FOR EACH ROW EXECUTE FUNCTION events_on_state_event_insert();
--> statement-breakpoint

-- leave_note: a user's comment (not a system note) in a project is `commented` with the note as target.
CREATE OR REPLACE FUNCTION events_on_note_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (project_id, author_id, target_type, target_id, action) VALUES (NEW.project_id, NEW.author_id, 'Note', NEW.id, 6);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER notes_events AFTER INSERT ON notes FOR EACH ROW
  WHEN (NOT NEW.system AND NEW.project_id IS NOT NULL AND NEW.author_id IS NOT NULL)
  EXECUTE FUNCTION events_on_note_insert();
--> statement-breakpoint

-- ProjectMember#post_create_hook / #post_destroy_hook: `joined` and `left`, except for the holder of
-- the personal namespace the project lives in; nothing once the project itself is gone.
CREATE OR REPLACE FUNCTION events_on_project_member() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  m members%ROWTYPE;
BEGIN
  IF TG_OP = 'INSERT' THEN m := NEW; ELSE m := OLD; END IF;
  INSERT INTO events (project_id, author_id, action)
    SELECT p.id, m.user_id, CASE TG_OP WHEN 'INSERT' THEN 8 ELSE 9 END
    FROM projects p JOIN namespaces n ON n.id = p.namespace_id
    WHERE p.id = m.source_id AND NOT (n.type = 'User' AND n.owner_id = m.user_id)
      AND EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER members_events_insert AFTER INSERT ON members FOR EACH ROW
  WHEN (NEW.source_type = 'Project') EXECUTE FUNCTION events_on_project_member();
--> statement-breakpoint
CREATE TRIGGER members_events_delete AFTER DELETE ON members FOR EACH ROW
  WHEN (OLD.source_type = 'Project') EXECUTE FUNCTION events_on_project_member();
--> statement-breakpoint

-- approve_mr (EE): `approved` with the merge request as target.
CREATE OR REPLACE FUNCTION events_on_approval_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (project_id, author_id, target_type, target_id, action)
    SELECT m.project_id, NEW.user_id, 'MergeRequest', m.id, 12 FROM merge_requests m WHERE m.id = NEW.merge_request_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER approvals_events AFTER INSERT ON approvals FOR EACH ROW EXECUTE FUNCTION events_on_approval_insert();
--> statement-breakpoint

-- push_event / PushEventPayloadService: `pushed` with its payload, for branches and tags only. The
-- commit count follows Git::BranchHooksService#commits_count: a new default branch counts its whole
-- history, a new branch the commits the default branch lacks, an update `before..after`, a removal 0;
-- a tag push counts its commit (Git::TagPushService). The walk that excludes the base's ancestors stops
-- 1,000 generations below the base (commit-graph generation numbers; git_commits.generation).
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
          SELECT base::text WHERE base IS NOT NULL
          UNION
          SELECT p.oid FROM excluded x JOIN git_commits c ON c.pool_id = pool AND c.oid = x.oid AND c.generation > floor_gen
            CROSS JOIN LATERAL unnest(c.parents) AS p(oid)
        ),
        included(oid) AS (
          SELECT NEW.after::text WHERE NOT EXISTS (SELECT 1 FROM excluded e WHERE e.oid = NEW.after)
          UNION
          SELECT p.oid FROM included x JOIN git_commits c ON c.pool_id = pool AND c.oid = x.oid AND c.generation > floor_gen
            CROSS JOIN LATERAL unnest(c.parents) AS p(oid)
            WHERE NOT EXISTS (SELECT 1 FROM excluded e WHERE e.oid = p.oid)
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
--> statement-breakpoint
CREATE TRIGGER push_events_events AFTER INSERT ON push_events FOR EACH ROW EXECUTE FUNCTION events_on_push_event_insert();
