// 0052 adds Pages (deployments, the served-deployment pointer, custom domains) and projects.pages_access_level:
// a project written before it has the default access level, no site and no domains, and takes a domain.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  return insertProject(db, "pages-before-0052");
}

export async function check(api, { projectId }, assert, db) {
  const project = await api("GET", `/projects/${projectId}`);
  assert.equal(project.body.pages_access_level, "enabled");
  const pages = await api("GET", `/projects/${projectId}/pages`);
  assert.equal(pages.status, 200, JSON.stringify(pages.body));
  assert.deepEqual(pages.body.deployments, []);
  const created = await api("POST", `/projects/${projectId}/pages/domains`, { json: { domain: "before-0052.example.org" } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { rows } = await db.query(`SELECT domain FROM pages_domains WHERE project_id = $1`, [projectId]);
  assert.deepEqual(rows, [{ domain: "before-0052.example.org" }]);
}
