// 0048 adds Terraform states and their versions, referencing projects, users and CI jobs: a project
// written before it lists no state (404), then takes a lock and a first version.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "terraform-before-0048");
}

export async function check(api, { projectId }, assert, db) {
  const missing = await api("GET", `/projects/${projectId}/terraform/state/prod`);
  assert.equal(missing.status, 404);
  const lock = await api("POST", `/projects/${projectId}/terraform/state/prod/lock`, {
    json: { ID: "l1", Operation: "OperationTypeApply", Info: "", Who: "me", Version: "1.5.7", Created: "2026-12-07T00:00:00Z", Path: "" },
  });
  assert.equal(lock.status, 200, JSON.stringify(lock.body));
  const { rows } = await db.query(`SELECT lock_xid FROM terraform_states WHERE project_id = $1`, [projectId]);
  assert.deepEqual(rows, [{ lock_xid: "l1" }]);
}
