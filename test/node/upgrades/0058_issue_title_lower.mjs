// 0058 adds `issues.title_lower` (generated: lower(title)) and moves the title's trigram index onto it. An
// issue written before it gets the column filled by the upgrade and is found by any case of its title; a
// retitled issue is found by its new title only.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const state = await insertProject(db, "title-lower-before-0058");
  const { rows: [issue] } = await db.query(
    `INSERT INTO issues (iid, project_id, title) VALUES (1, $1, 'Upgrade MixedCase Quokka') RETURNING id`,
    [state.projectId],
  );
  return { ...state, issueId: issue.id };
}

export async function check(api, { projectId, issueId }, assert, db) {
  const { rows: [row] } = await db.query(`SELECT title_lower FROM issues WHERE id = $1`, [issueId]);
  assert.equal(row.title_lower, "upgrade mixedcase quokka");
  const search = async (term) => (await api("GET", `/projects/${projectId}/search?scope=issues&search=${encodeURIComponent(term)}`)).body.map((i) => i.id);
  assert.deepEqual(await search("mixedCASE quokka"), [issueId]);
  await db.query(`UPDATE issues SET title = 'Renamed Wombat' WHERE id = $1`, [issueId]);
  assert.deepEqual(await search("QUOKKA"), []);
  assert.deepEqual(await search("wombat"), [issueId]);
}
