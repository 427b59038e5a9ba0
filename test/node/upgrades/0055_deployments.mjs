// 0055 adds `deployments` (and its trigger on `ci_builds`) and the environments' `environment_type` and
// `auto_stop_at`. An environment written before it reads back with no last deployment; a deployment
// can then be recorded for it, which becomes its last deployment.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const state = await insertProject(db, "deployments-before-0055");
  const { rows: [env] } = await db.query(
    `INSERT INTO environments (project_id, name, slug, state, tier) VALUES ($1, 'production', 'production', 'available', 'production') RETURNING id`,
    [state.projectId],
  );
  return { ...state, environmentId: env.id };
}

export async function check(api, { projectId, environmentId }, assert, db) {
  const env = await api("GET", `/projects/${projectId}/environments/${environmentId}`);
  assert.equal(env.status, 200, JSON.stringify(env.body));
  assert.equal(env.body.name, "production");
  assert.equal(env.body.last_deployment, null);
  const none = await api("GET", `/projects/${projectId}/deployments`);
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, []);
  // A deployment row as the API writes it (no repository here, so not through POST's sha check).
  await db.query(
    `INSERT INTO deployments (iid, project_id, environment_id, ref, sha, status, finished_at) VALUES (1, $1, $2, 'main', $3, 'success', now())`,
    [projectId, environmentId, "a".repeat(40)],
  );
  const after = await api("GET", `/projects/${projectId}/environments/${environmentId}`);
  assert.equal(after.body.last_deployment.iid, 1);
  assert.equal(after.body.last_deployment.status, "success");
  const list = await api("GET", `/projects/${projectId}/deployments?environment=production`);
  assert.deepEqual(list.body.map((d) => d.iid), [1]);
}
