// 0041 adds merge_requests.allow_collaboration (NOT NULL, default false): a merge request written before
// it reads back, with the flag off and shown only for merge requests from a fork (this one is not).
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "merge-requests-before-0041");
  await db.query(
    `INSERT INTO merge_requests (iid, project_id, source_project_id, title, source_branch, target_branch, author_id, state)
     VALUES (1, $1, $1, 'Written before 0041', 'feature', 'main', 1, 'opened')`,
    [projectId],
  );
  return { projectId };
}

export async function check(api, { projectId }, assert) {
  const list = await api("GET", `/projects/${projectId}/merge_requests`);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.map((mr) => [mr.iid, mr.title, mr.state]), [[1, "Written before 0041", "opened"]]);
  assert.equal("allow_collaboration" in list.body[0], false, "not a merge request from a fork");
}
