// 0043 moves projects' topics from `projects.tag_list` into `topics` and `project_topics` (tag_list is
// kept by triggers from then on): topics written before it become topic rows, one per name
// case-insensitively (the first project's spelling), with their counts; blanks and repeats are dropped.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const first = await insertProject(db, "topics-before-0043-a");
  const second = await insertProject(db, "topics-before-0043-b");
  await db.query(`UPDATE projects SET tag_list = $2, visibility_level = 20 WHERE id = $1`, [first.projectId, ["Upgrade-0043-Ruby", " upgrade-0043-go ", "", "upgrade-0043-ruby"]]);
  await db.query(`UPDATE projects SET tag_list = $2 WHERE id = $1`, [second.projectId, ["UPGRADE-0043-RUBY"]]);
  return { first: first.projectId, second: second.projectId };
}

export async function check(api, { first, second }, assert) {
  const a = await api("GET", `/projects/${first}`);
  assert.equal(a.status, 200);
  assert.deepEqual(a.body.topics, ["Upgrade-0043-Ruby", "upgrade-0043-go"]);
  assert.deepEqual(a.body.tag_list, ["Upgrade-0043-Ruby", "upgrade-0043-go"]);
  const b = await api("GET", `/projects/${second}`);
  assert.deepEqual(b.body.topics, ["Upgrade-0043-Ruby"]);
  const topics = await api("GET", `/topics?search=upgrade-0043`);
  assert.equal(topics.status, 200);
  const counts = Object.fromEntries(topics.body.map((t) => [t.name, t.total_projects_count]));
  assert.deepEqual(counts, { "Upgrade-0043-Ruby": 2, "upgrade-0043-go": 1 });
  const filtered = await api("GET", `/projects?topic=Upgrade-0043-Ruby`);
  assert.deepEqual(filtered.body.map((p) => p.id).sort((x, y) => x - y), [first, second].sort((x, y) => x - y));
}
