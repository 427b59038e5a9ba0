// 0038 rewrites the push-event trigger: a push recorded before it keeps its event, and a push after it
// is recorded by the new function.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "pushes-before-0038");
  await db.query(
    `INSERT INTO push_events (project_id, user_id, ref, before, after) VALUES ($1, 1, 'refs/heads/main', $2, $3)`,
    [projectId, "0".repeat(40), "b".repeat(40)],
  );
  return { projectId };
}

export async function check(api, { projectId }, assert, db) {
  const before = await api("GET", `/projects/${projectId}/events?action=pushed`);
  assert.equal(before.status, 200);
  assert.deepEqual(before.body.map((e) => [e.action_name, e.push_data?.ref, e.push_data?.commit_to]), [["pushed new", "main", "b".repeat(40)]]);
  await db.query(
    `INSERT INTO push_events (project_id, user_id, ref, before, after) VALUES ($1, 1, 'refs/heads/main', $2, $3)`,
    [projectId, "b".repeat(40), "c".repeat(40)],
  );
  const after = await api("GET", `/projects/${projectId}/events?action=pushed&sort=asc`);
  assert.deepEqual(after.body.map((e) => [e.action_name, e.push_data?.commit_from]), [["pushed new", null], ["pushed to", "b".repeat(40)]]);
}
