// 0042 moves projects' topics from `projects.tag_list` into `topics` and `project_topics` (tag_list is
// kept by triggers from then on): topics written before it become topic rows, one per name
// case-insensitively (the first project's spelling), with their counts; blanks and repeats are dropped.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const first = await insertProject(db, "topics-before-0042-a");
  const second = await insertProject(db, "topics-before-0042-b");
  await db.query(`UPDATE projects SET tag_list = $2, visibility_level = 20 WHERE id = $1`, [first.projectId, ["Upgrade-0042-Ruby", " upgrade-0042-go ", "", "upgrade-0042-ruby"]]);
  await db.query(`UPDATE projects SET tag_list = $2 WHERE id = $1`, [second.projectId, ["UPGRADE-0042-RUBY"]]);
  return { first: first.projectId, second: second.projectId };
}

export async function check(api, { first, second }, assert) {
  const a = await api("GET", `/projects/${first}`);
  assert.equal(a.status, 200);
  assert.deepEqual(a.body.topics, ["Upgrade-0042-Ruby", "upgrade-0042-go"]);
  assert.deepEqual(a.body.tag_list, ["Upgrade-0042-Ruby", "upgrade-0042-go"]);
  const b = await api("GET", `/projects/${second}`);
  assert.deepEqual(b.body.topics, ["Upgrade-0042-Ruby"]);
  const topics = await api("GET", `/topics?search=upgrade-0042`);
  assert.equal(topics.status, 200);
  const counts = Object.fromEntries(topics.body.map((t) => [t.name, t.total_projects_count]));
  assert.deepEqual(counts, { "Upgrade-0042-Ruby": 2, "upgrade-0042-go": 1 });
  const filtered = await api("GET", `/projects?topic=Upgrade-0042-Ruby`);
  assert.deepEqual(filtered.body.map((p) => p.id).sort((x, y) => x - y), [first, second].sort((x, y) => x - y));
}
