CREATE TABLE "deployments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deployments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"iid" integer NOT NULL,
	"project_id" integer NOT NULL,
	"environment_id" integer NOT NULL,
	"ref" text NOT NULL,
	"tag" boolean DEFAULT false NOT NULL,
	"sha" text NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"deployable_id" integer,
	"user_id" integer,
	"on_stop" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "environment_type" text;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "auto_stop_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_deployable_id_ci_builds_id_fk" FOREIGN KEY ("deployable_id") REFERENCES "public"."ci_builds"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_deployments_on_project_id_and_iid" ON "deployments" USING btree ("project_id","iid");--> statement-breakpoint
CREATE INDEX "index_deployments_on_project_id_and_id" ON "deployments" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_deployments_on_project_id_and_updated_at_and_id" ON "deployments" USING btree ("project_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "index_deployments_on_project_id_and_finished_at" ON "deployments" USING btree ("project_id","finished_at") WHERE "deployments"."status" = 'success';--> statement-breakpoint
CREATE INDEX "index_deployments_on_environment_id_and_status_and_id" ON "deployments" USING btree ("environment_id","status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_deployments_on_deployable_id" ON "deployments" USING btree ("deployable_id");--> statement-breakpoint
CREATE INDEX "index_environments_on_auto_stop_at" ON "environments" USING btree ("auto_stop_at") WHERE "environments"."auto_stop_at" IS NOT NULL AND "environments"."state" = 'available';--> statement-breakpoint

-- hand-written: the one writer of a job's deployment status and of what a successful deployment or a
-- stop job does to its environment.
-- 1. A statement trigger on `ci_builds` with transition tables runs in the transaction of whatever moved
--    the job (the runner's claim, the coordinator's processing, finish, cancel, play, the sweep), so a
--    deployment never disagrees with its job. Jobs without an `environment` object in their options leave
--    at the first check.
--    * Deployment#sync_status_with: the deployment takes the job's status when it is a deployment status
--      (running, success, failed, canceled, skipped); `finished_at` is set on success, failed, canceled.
--    * BuildSuccessWorker#stop_environment: a successful `action: stop` job stops its environment; a stop
--      job that fails or is canceled gives a `stopping` environment back (`available`).
-- 2. Row triggers on `deployments` (a job's, or one written through the API) turning `success`:
--    Deployments::UpdateEnvironmentService: the job's expanded URL becomes the environment's external URL,
--    `auto_stop_in` sets `auto_stop_at`, `deployment_tier` the tier, and a stopped environment starts.
CREATE OR REPLACE FUNCTION ci_builds_sync_deployments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_rows WHERE jsonb_typeof(options -> 'environment') = 'object') THEN
    RETURN NULL;
  END IF;
  WITH moved AS (
    SELECT n.id, n.status, n.options -> 'environment' AS env
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.status IS DISTINCT FROM o.status AND jsonb_typeof(n.options -> 'environment') = 'object'
  ), synced AS (
    UPDATE deployments d SET status = m.status, updated_at = now(),
      finished_at = CASE WHEN m.status IN ('success', 'failed', 'canceled') THEN now() ELSE d.finished_at END
    FROM moved m
    WHERE d.deployable_id = m.id AND m.status IN ('running', 'success', 'failed', 'canceled', 'skipped') AND d.status <> m.status
    RETURNING d.id
  )
  UPDATE environments e SET
    state = CASE WHEN m.status = 'success' THEN 'stopped' ELSE 'available' END,
    auto_stop_at = CASE WHEN m.status = 'success' THEN NULL ELSE e.auto_stop_at END,
    updated_at = now()
  FROM moved m
  WHERE m.env ->> 'action' = 'stop' AND e.id = (m.env ->> 'id')::int
    AND ((m.status = 'success' AND e.state <> 'stopped') OR (m.status IN ('failed', 'canceled') AND e.state = 'stopping'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ci_builds_sync_deployments AFTER UPDATE ON ci_builds
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ci_builds_sync_deployments();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION deployments_update_environment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  env jsonb;
BEGIN
  IF NEW.deployable_id IS NOT NULL THEN
    SELECT options -> 'environment' INTO env FROM ci_builds WHERE id = NEW.deployable_id;
  END IF;
  IF jsonb_typeof(env) IS DISTINCT FROM 'object' THEN
    env := '{}'::jsonb;
  END IF;
  UPDATE environments SET
    external_url = CASE WHEN (env ->> 'url_from_job')::boolean THEN env ->> 'url' ELSE external_url END,
    auto_stop_at = CASE WHEN env ->> 'auto_stop_in_seconds' IS NULL THEN auto_stop_at
                        ELSE now() + (env ->> 'auto_stop_in_seconds')::int * interval '1 second' END,
    tier = coalesce(env ->> 'deployment_tier', tier),
    state = CASE WHEN state = 'stopped' THEN 'available' ELSE state END,
    updated_at = now()
  WHERE id = NEW.environment_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER deployments_succeeded_insert AFTER INSERT ON deployments
  FOR EACH ROW WHEN (NEW.status = 'success') EXECUTE FUNCTION deployments_update_environment();
--> statement-breakpoint
CREATE TRIGGER deployments_succeeded_update AFTER UPDATE OF status ON deployments
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status = 'success') EXECUTE FUNCTION deployments_update_environment();
