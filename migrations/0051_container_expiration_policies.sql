CREATE TABLE "container_expiration_policies" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"next_run_at" timestamp (3) with time zone,
	"name_regex" varchar(255) DEFAULT '.*',
	"cadence" varchar(12) DEFAULT '1d' NOT NULL,
	"older_than" varchar(12) DEFAULT '90d',
	"keep_n" integer DEFAULT 10,
	"enabled" boolean DEFAULT false NOT NULL,
	"name_regex_keep" text
);
--> statement-breakpoint
ALTER TABLE "container_expiration_policies" ADD CONSTRAINT "container_expiration_policies_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_container_expiration_policies_on_next_run_at_and_enabled" ON "container_expiration_policies" USING btree ("next_run_at") WHERE "container_expiration_policies"."enabled";--> statement-breakpoint
-- Hand-written below the generated part (docs/database.md). `cadence` as an interval: the one reading of
-- ContainerExpirationPolicy.cadence_options, used by the trigger, the update and the cron's claim.
CREATE OR REPLACE FUNCTION container_expiration_cadence(cadence text) RETURNS interval LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE cadence WHEN '7d' THEN interval '7 days' WHEN '14d' THEN interval '14 days'
    WHEN '1month' THEN interval '1 month' WHEN '3month' THEN interval '3 months' ELSE interval '1 day' END
$$;
--> statement-breakpoint
-- Every project has a policy, as GitLab's Project creates one with itself (disabled by default).
CREATE OR REPLACE FUNCTION container_expiration_policies_create() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO container_expiration_policies (project_id, next_run_at) VALUES (NEW.id, now() + interval '1 day')
    ON CONFLICT (project_id) DO NOTHING;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER container_expiration_policies_on_project_insert AFTER INSERT ON projects
  FOR EACH ROW EXECUTE FUNCTION container_expiration_policies_create();
--> statement-breakpoint
INSERT INTO container_expiration_policies (project_id, next_run_at)
  SELECT id, now() + interval '1 day' FROM projects ON CONFLICT (project_id) DO NOTHING;
