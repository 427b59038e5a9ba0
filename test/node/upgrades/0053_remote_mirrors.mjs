// 0053 adds remote (push) mirrors. A project written before it lists none, then takes one whose URL is
// shown with its credentials masked; the mirror goes with the project.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "mirrors-before-0053");
}

export async function check(api, { projectId }, assert, db) {
  const none = await api("GET", `/projects/${projectId}/remote_mirrors`);
  assert.deepEqual([none.status, none.body], [200, []]);
  const created = await api("POST", `/projects/${projectId}/remote_mirrors`, { json: { url: "https://bob:secret@example.com/a/b.git" } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.url, "https://*****:*****@example.com/a/b.git");
  await db.query(`DELETE FROM projects WHERE id = $1`, [projectId]);
  const { rows } = await db.query(`SELECT id FROM remote_mirrors WHERE project_id = $1`, [projectId]);
  assert.deepEqual(rows, []);
}
