// 0037 adds package build infos, referencing packages and pipelines: both written before it read back.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "packages-before-0037");
  const { rows: [pkg] } = await db.query(
    `INSERT INTO packages_packages (project_id, name, version, package_type) VALUES ($1, 'tool', '1.2.3', 'generic') RETURNING id`,
    [projectId],
  );
  await db.query(
    `INSERT INTO ci_pipelines (iid, project_id, ref, sha, source, status) VALUES (1, $1, 'main', $2, 'push', 'success')`,
    [projectId, "a".repeat(40)],
  );
  return { projectId, packageId: pkg.id };
}

export async function check(api, { projectId, packageId }, assert) {
  const pkg = await api("GET", `/projects/${projectId}/packages/${packageId}`);
  assert.equal(pkg.status, 200);
  assert.equal(pkg.body.name, "tool");
  assert.equal(pkg.body.version, "1.2.3");
  const pipelines = await api("GET", `/projects/${projectId}/packages/${packageId}/pipelines`);
  assert.equal(pipelines.status, 200);
  assert.deepEqual(pipelines.body, []);
  const list = await api("GET", `/projects/${projectId}/pipelines`);
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.map((p) => [p.iid, p.ref, p.sha, p.status]), [[1, "main", "a".repeat(40), "success"]]);
}
