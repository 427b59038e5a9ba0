-- Keeps issues.label_ids equal to the issue's label_links, whichever statement writes them (issue
-- writes, label deletion through the foreign key's cascade, direct inserts).
CREATE OR REPLACE FUNCTION issues_sync_label_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.target_type = 'Issue' THEN
      UPDATE issues SET label_ids = array_append(array_remove(label_ids, NEW.label_id), NEW.label_id) WHERE id = NEW.target_id;
    END IF;
    RETURN NEW;
  END IF;
  IF OLD.target_type = 'Issue' THEN
    UPDATE issues SET label_ids = array_remove(label_ids, OLD.label_id) WHERE id = OLD.target_id;
  END IF;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER label_links_sync_issue_label_ids AFTER INSERT OR DELETE ON label_links
  FOR EACH ROW EXECUTE FUNCTION issues_sync_label_ids();
--> statement-breakpoint
UPDATE issues SET label_ids = COALESCE(
  (SELECT array_agg(ll.label_id ORDER BY ll.id) FROM label_links ll WHERE ll.target_type = 'Issue' AND ll.target_id = issues.id),
  '{}'::integer[]);
