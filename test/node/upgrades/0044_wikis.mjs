// 0044 adds `wikis` and drops git_refs' foreign key to projects (a wiki's refs are stored under minus its
// id), with triggers that delete refs with their project or wiki. A project written before it, with a
// ref, keeps the ref, lists an empty wiki, gets a wiki page written, and its refs go when it is deleted.
import { insertProject } from "./base.mjs";

const TARGET = "1111111111111111111111111111111111111111";

export async function fill(db) {
  const made = await insertProject(db, "wikis-before-0044");
  await db.query(`INSERT INTO git_refs (project_id, name, target) VALUES ($1, 'refs/heads/main', $2)`, [made.projectId, TARGET]);
  return made;
}

export async function check(api, { projectId }, assert, db) {
  const { rows: kept } = await db.query(`SELECT target FROM git_refs WHERE project_id = $1`, [projectId]);
  assert.deepEqual(kept.map((r) => r.target), [TARGET]);
  const empty = await api("GET", `/projects/${projectId}/wikis`);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, []);
  const created = await api("POST", `/projects/${projectId}/wikis`, { json: { title: "Home", content: "Hello" } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body, { format: "markdown", slug: "Home", title: "Home", content: "Hello", encoding: "UTF-8" });
  const { rows: [wiki] } = await db.query(`SELECT id FROM wikis WHERE project_id = $1`, [projectId]);
  const { rows: wikiRefs } = await db.query(`SELECT name FROM git_refs WHERE project_id = $1`, [-wiki.id]);
  assert.equal(wikiRefs.length, 1);
  await db.query(`DELETE FROM projects WHERE id = $1`, [projectId]);
  const { rows: left } = await db.query(`SELECT project_id FROM git_refs WHERE project_id = ANY($1::int[])`, [[projectId, -wiki.id]]);
  assert.deepEqual(left, []);
}
