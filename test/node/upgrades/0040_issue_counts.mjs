// 0040 keeps issue counts by trigger and fills them from the issues already there: issues written
// before it are counted (the list's totals), and later writes keep the counts exact.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "issues-before-0040");
  const { rows: [label] } = await db.query(
    `INSERT INTO labels (title, color, project_id) VALUES ('bug', '#ff0000', $1) RETURNING id`,
    [projectId],
  );
  for (let iid = 1; iid <= 5; iid++) {
    const { rows: [issue] } = await db.query(
      `INSERT INTO issues (iid, project_id, title, author_id, state) VALUES ($1, $2, $3, 1, $4) RETURNING id`,
      [iid, projectId, `Issue ${iid}`, iid === 5 ? "closed" : "opened"],
    );
    if (iid <= 3) await db.query(`INSERT INTO label_links (label_id, target_id, target_type) VALUES ($1, $2, 'Issue')`, [label.id, issue.id]);
  }
  return { projectId };
}

export async function check(api, { projectId }, assert, db) {
  const all = await api("GET", `/projects/${projectId}/issues?per_page=2`);
  assert.equal(all.status, 200);
  assert.equal(all.headers.get("x-total"), "5");
  const bugs = await api("GET", `/projects/${projectId}/issues?labels=bug&state=opened`);
  assert.deepEqual(bugs.body.map((i) => i.iid).sort(), [1, 2, 3]);
  assert.equal(bugs.headers.get("x-total"), "3");
  const stats = await api("GET", `/projects/${projectId}/issues_statistics`);
  assert.deepEqual(stats.body.statistics.counts, { all: 5, closed: 1, opened: 4 });
  const { rows } = await db.query(`SELECT sum(count)::int AS n FROM issue_counts WHERE project_id = $1`, [projectId]);
  assert.equal(rows[0].n, 5);
}
