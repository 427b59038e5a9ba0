// 0047 adds the container registry's tables, `projects.container_registry_enabled` (default true) and
// PyPI metadata. A project written before it has its registry enabled, lists no image repositories,
// and its packages API still answers.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "registry-before-0047");
}

export async function check(api, { projectId }, assert, db) {
  const { rows: [row] } = await db.query(`SELECT container_registry_enabled FROM projects WHERE id = $1`, [projectId]);
  assert.equal(row.container_registry_enabled, true);
  const repos = await api("GET", `/projects/${projectId}/registry/repositories`);
  assert.equal(repos.status, 200);
  assert.deepEqual(repos.body, []);
  const packages = await api("GET", `/projects/${projectId}/packages?package_type=pypi`);
  assert.equal(packages.status, 200);
  assert.deepEqual(packages.body, []);
}
