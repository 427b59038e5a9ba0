// 0051 adds container_expiration_policies (one per project: backfilled for the projects before it, made
// by a trigger for new ones). A project written before it shows GitLab's default policy, disabled, and
// takes a new one through PUT /projects/:id.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "policy-before-0051");
}

export async function check(api, { projectId }, assert) {
  const before = await api("GET", `/projects/${projectId}`);
  assert.equal(before.status, 200);
  const policy = before.body.container_expiration_policy;
  assert.deepEqual({ ...policy, next_run_at: typeof policy.next_run_at }, {
    cadence: "1d", enabled: false, keep_n: 10, older_than: "90d", name_regex: ".*", name_regex_keep: null, next_run_at: "string",
  });
  const put = await api("PUT", `/projects/${projectId}`, { json: { container_expiration_policy_attributes: { enabled: true, cadence: "7d", keep_n: 5 } } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.container_expiration_policy.enabled, true);
  assert.equal(put.body.container_expiration_policy.cadence, "7d");
}
