// 0056 adds group iterations. A group written before it lists none, then takes one; the iteration goes
// with the group.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "iterations-before-0056");
}

export async function check(api, { groupId, projectId }, assert, db) {
  const none = await api("GET", `/projects/${projectId}/iterations`);
  assert.deepEqual([none.status, none.body], [200, []]);
  const created = await api("POST", `/groups/${groupId}/iterations`, { json: { title: "s1", start_date: "2030-01-01", due_date: "2030-01-14" } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual([created.body.iid, created.body.sequence, created.body.state], [1, 1, 1]);
  await db.query(`DELETE FROM namespaces WHERE id = $1`, [groupId]);
  const { rows } = await db.query(`SELECT id FROM iterations WHERE group_id = $1`, [groupId]);
  assert.deepEqual(rows, []);
}
