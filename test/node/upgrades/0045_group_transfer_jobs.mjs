// 0045 adds `group_transfer_jobs` (group export and import jobs). A group written before it has no
// export: its status download answers 404 and an export can be started for it.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "group-export-before-0045");
}

export async function check(api, { groupId }, assert, db) {
  const missing = await api("GET", `/groups/${groupId}/export/download`);
  assert.equal(missing.status, 404);
  const started = await api("POST", `/groups/${groupId}/export`);
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const { rows } = await db.query(`SELECT kind, status FROM group_transfer_jobs WHERE group_id = $1`, [groupId]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].kind, "export");
}
