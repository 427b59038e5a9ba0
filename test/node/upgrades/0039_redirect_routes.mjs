// 0039 adds redirect routes and triggers on projects and namespaces: a project written before it reads
// back by its path, and renaming it afterwards leaves a redirect from the old path.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "routes-before-0039");
}

export async function check(api, { projectId, fullPath }, assert) {
  const byPath = await api("GET", `/projects/${encodeURIComponent(fullPath)}`);
  assert.equal(byPath.status, 200);
  assert.equal(byPath.body.id, projectId);
  const renamed = await api("PUT", `/projects/${projectId}`, { json: { path: "routes-renamed" } });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  const old = await api("GET", `/projects/${encodeURIComponent(fullPath)}`);
  assert.equal(old.status, 200);
  assert.equal(old.body.path_with_namespace, "routes-before-0039-group/routes-renamed");
}
