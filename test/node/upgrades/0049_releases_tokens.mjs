// 0049 adds releases (with links, milestones and evidences), protected tags and deploy tokens. A project
// written before it lists no releases, no protected tags and no deploy tokens, and protects a tag after.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "releases-before-0049");
}

export async function check(api, { projectId }, assert) {
  const releases = await api("GET", `/projects/${projectId}/releases`);
  assert.equal(releases.status, 200);
  assert.deepEqual(releases.body, []);
  const tokens = await api("GET", `/projects/${projectId}/deploy_tokens`);
  assert.deepEqual([tokens.status, tokens.body], [200, []]);
  const created = await api("POST", `/projects/${projectId}/protected_tags`, { json: { name: "v*" } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.name, "v*");
}
