// 0050 adds the instance administration tables (broadcast_messages, features, feature_gates, push_rules,
// queue_metrics, project_daily_statistics). A project and group written before it have no push rule and
// no fetches, then take a push rule each; the project's rule goes with it.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "instance-before-0050");
}

export async function check(api, { projectId, groupId }, assert, db) {
  const none = await api("GET", `/projects/${projectId}/push_rule`);
  assert.equal(none.status, 200);
  assert.equal(none.body, null);
  const stats = await api("GET", `/projects/${projectId}/statistics`);
  assert.deepEqual(stats.body, { fetches: { total: 0, days: [] } });
  const created = await api("POST", `/projects/${projectId}/push_rule`, { json: { deny_delete_tag: true } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.project_id, projectId);
  const group = await api("POST", `/groups/${groupId}/push_rule`, { json: { member_check: true } });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  await db.query(`DELETE FROM projects WHERE id = $1`, [projectId]);
  const { rows } = await db.query(`SELECT id FROM push_rules WHERE project_id = $1`, [projectId]);
  assert.deepEqual(rows, []);
}
