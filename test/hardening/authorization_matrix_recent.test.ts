import { beforeAll, describe, it } from "vitest";
import { BASE, request, type Client } from "../helpers/client";
import { unique, world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";
import { alertsOf, drain, integrationsPath, notify } from "../helpers/alerts";
import { FULL, ok, runMatrix, type Endpoint } from "./matrix";
import { ROLES, roleClients, VISIBILITIES, type Role, type Vis } from "./roles";

/**
 * The authorization matrix, fourth part: more recent endpoints (issue
 * move, clone and reorder; issue links (a guest bug the matrix found); alert metric images; project and group avatars; the hook test trigger;
 * epic resource events; LFS lock verify and unlock). Same rule as the other tables (`expected` in
 * matrix.ts), following GitLab's app/policies and lib/api. The roles are members of the group the
 * project lives in. Package pipelines are a row of authorization_matrix_resources.test.ts (its
 * package fixtures), `GET /avatar` and user avatars rows of authorization_matrix_users.test.ts.
 */
type Fixture = {
  group: TestGroup;
  project: TestProject;
  /** A project of the same group (and visibility) that issues are moved and cloned to. */
  targetId: number;
  reorderIid: number;
  neighbourId: number;
  alertIid: number;
  imageId: number;
  hookId: number;
  epicId: number;
  stateEventId: number;
  labelEventId: number;
  byRole: Record<Role, { moveIid: number; cloneIid: number; linkIid: number; imageId: number; lockId: number }>;
};

const SKIP = "[skip ci]";
const P = (f: Fixture) => `/projects/${f.project.id}`;
const G = (f: Fixture) => `/groups/${f.group.id}`;
const LFS = (f: Fixture) => `${BASE}/${f.project.fullPath}.git/info/lfs`;
/** A 1×1 PNG. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (ch) => ch.charCodeAt(0));

function imageForm(field: string): FormData {
  const form = new FormData();
  form.append(field, new File([PNG], `${unique("img")}.png`, { type: "image/png" }));
  return form;
}

/** THE table (projects). */
const PROJECT_ENDPOINTS: Endpoint<Fixture>[] = [
  // lib/api/issues.rb move/clone: Issues::MoveService/CloneService refuse without `admin_issue` (reporter)
  // on both projects, with `bad_request!` (400) "Cannot move/clone issue due to insufficient permissions!".
  { name: "move issue", method: "POST", path: (f, r) => `${P(f)}/issues/${f.byRole[r].moveIid}/move`, body: (f) => ({ to_project_id: f.targetId }), min: "reporter", denied: 400, ok: 201 },
  { name: "clone issue", method: "POST", path: (f, r) => `${P(f)}/issues/${f.byRole[r].cloneIid}/clone`, body: (f) => ({ to_project_id: f.targetId }), min: "reporter", denied: 400, ok: 201 },
  // Issues::ReorderService: `authorize! :update_issue` (reporters; the issue's author is root).
  { name: "reorder issue", method: "PUT", path: (f) => `${P(f)}/issues/${f.reorderIid}/reorder`, body: (f) => ({ move_after_id: f.neighbourId }), min: "reporter", ok: 200 },
  // lib/api/issue_links.rb (`before { authenticate! }`): reading follows the issue; IssueLinks::CreateService keeps only
  // the issues the caller may `admin_issue_link` (reporters) and answers 404 "No matching issue found".
  { name: "list issue links", method: "GET", path: (f) => `${P(f)}/issues/${f.reorderIid}/links`, min: "guest", readers: true, signedIn: true, ok: 200 },
  {
    name: "create issue link",
    method: "POST",
    path: (f) => `${P(f)}/issues/${f.reorderIid}/links`,
    body: (f, r) => ({ target_project_id: f.project.id, target_issue_iid: f.byRole[r].linkIid }),
    min: "reporter",
    denied: 404,
    ok: 201,
  },
  // lib/api/alert_management_alerts.rb: AlertPolicy gives every metric image ability with
  // `read_alert_management_alert` (reporters); `find_project_alert` finds nothing for others, so the
  // list is 404 "Alert not found" and the writes `authorize!`'s 403.
  { name: "list alert metric images", method: "GET", path: (f) => `${P(f)}/alert_management_alerts/${f.alertIid}/metric_images`, min: "reporter", denied: 404, ok: 200 },
  { name: "upload alert metric image", method: "POST", path: (f) => `${P(f)}/alert_management_alerts/${f.alertIid}/metric_images`, multipart: () => imageForm("file"), min: "reporter", ok: 201 },
  {
    name: "update alert metric image",
    method: "PUT",
    path: (f) => `${P(f)}/alert_management_alerts/${f.alertIid}/metric_images/${f.imageId}`,
    body: () => ({ url_text: unique("t") }),
    min: "reporter",
    ok: 200,
  },
  { name: "delete alert metric image", method: "DELETE", path: (f, r) => `${P(f)}/alert_management_alerts/${f.alertIid}/metric_images/${f.byRole[r].imageId}`, min: "reporter", ok: 204 },
  // lib/api/projects.rb PUT :id (`authorize_admin_project`) with an avatar.
  { name: "project avatar upload", method: "PUT", path: (f) => P(f), multipart: () => imageForm("avatar"), min: "maintainer", ok: 200 },
  // lib/api/project_hooks.rb test/:trigger: `authorize_admin_project` before the sample is built; the
  // project has no pipeline, so who may answers 422 "Ensure the project has CI pipelines." and no delivery goes out.
  { name: "hook test trigger", method: "POST", path: (f) => `${P(f)}/hooks/${f.hookId}/test/pipeline_events`, min: "maintainer", ok: 422 },
  // Repositories::LfsLocksApiController: verify and unlock are upload requests (push_code, developers;
  // 403 for who reads the project, 404 for who does not, 401 asking anonymous callers for credentials);
  // forcing the release of another user's lock needs `admin_project` (maintainers), else 403.
  { name: "LFS locks verify", method: "POST", path: (f) => `${LFS(f)}/locks/verify`, body: () => ({}), basic: true, challenge: true, min: "developer", ok: 200 },
  { name: "LFS force unlock", method: "POST", path: (f, r) => `${LFS(f)}/locks/${f.byRole[r].lockId}/unlock`, body: () => ({ force: true }), basic: true, challenge: true, min: "maintainer", ok: 200 },
];

/** THE table (groups). */
const GROUP_ENDPOINTS: Endpoint<Fixture>[] = [
  // lib/api/groups.rb PUT :id (`authorize! :admin_group`) with an avatar; GET :id/avatar reads the group.
  { name: "group avatar upload", method: "PUT", path: (f) => G(f), multipart: () => imageForm("avatar"), min: "owner", ok: 200 },
  { name: "group avatar", method: "GET", path: (f) => `${G(f)}/avatar`, min: "guest", readers: true, ok: 200 },
  // lib/api/resource_state_events.rb, resource_label_events.rb (`before { authenticate! }`): read_epic
  // (group readers), the single event too.
  { name: "epic state events", method: "GET", path: (f) => `${G(f)}/epics/${f.epicId}/resource_state_events`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "epic state event", method: "GET", path: (f) => `${G(f)}/epics/${f.epicId}/resource_state_events/${f.stateEventId}`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "epic label events", method: "GET", path: (f) => `${G(f)}/epics/${f.epicId}/resource_label_events`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "epic label event", method: "GET", path: (f) => `${G(f)}/epics/${f.epicId}/resource_label_events/${f.labelEventId}`, min: "guest", readers: true, signedIn: true, ok: 200 },
];

type RoleUsers = Record<"guest" | "reporter" | "developer" | "maintainer" | "owner", TestUser>;

async function fixture(w: World, vis: Vis, users: RoleUsers): Promise<Fixture> {
  const { guest, reporter, developer, maintainer, owner } = users;
  const group = await w.group({ visibility: vis, guests: [guest], reporters: [reporter], developers: [developer], maintainers: [maintainer], owners: [owner] });
  const [project, target] = await Promise.all([w.project({ visibility: vis, group }), w.project({ visibility: vis, group })]);
  const api = w.as(owner);
  const p = `/projects/${project.id}`;
  const g = `/groups/${group.id}`;
  const json = <T>(res: Promise<Response>, status: number, what: string) => res.then((r) => ok<T>(r, status, what));
  await json(api.post(`${p}/repository/commits`, { json: { branch: "main", commit_message: `setup ${SKIP}`, actions: [{ action: "create", file_path: "README.md", content: "readme" }] } }), 201, "commit");
  // Issues by root: no role is their author (who may update their own issue).
  const issue = (title: string) => json<{ iid: number; id: number }>(w.root.post(`${p}/issues`, { json: { title } }), 201, "issue");
  const [reorder, neighbour, integration, hook, epic, groupLabel] = await Promise.all([
    issue("reorder"),
    issue("neighbour"),
    json<{ url: string; token: string }>(api.post(integrationsPath(project.id), { json: { name: "alerts", active: true } }), 201, "integration"),
    json<{ id: number }>(api.post(`${p}/hooks`, { json: { url: "https://example.com/hook", push_events: false, pipeline_events: true } }), 201, "hook"),
    json<{ id: number; iid: number }>(api.post(`${g}/epics`, { json: { title: "epic" } }), 201, "epic"),
    json<{ name: string }>(api.post(`${g}/labels`, { json: { name: "epic-label", color: "#ff0000" } }), 201, "group label"),
  ]);
  // An alert (through the HTTP integration and the alerts queue), and a metric image of it.
  await notify(integration.url, integration.token, { title: "Disk full", fingerprint: unique("fp") }).then((r) => ok(r, 200, "notify"));
  await drain(w, project);
  const [alert] = await alertsOf(w, owner, project);
  const images = `${p}/alert_management_alerts/${alert.iid}/metric_images`;
  const image = await json<{ id: number }>(api.post(images, { multipart: imageForm("file") }), 201, "metric image");
  // A group avatar to read; an epic with a state event and a label event.
  await json(api.put(g, { multipart: imageForm("avatar") }), 200, "group avatar");
  await json(api.put(`${g}/epics/${epic.iid}`, { json: { add_labels: groupLabel.name, state_event: "close" } }), 200, "epic");
  const [stateEvent] = await json<{ id: number }[]>(api.get(`${g}/epics/${epic.id}/resource_state_events`), 200, "state events");
  const [labelEvent] = await json<{ id: number }[]>(api.get(`${g}/epics/${epic.id}/resource_label_events`), 200, "label events");
  const lfsLock = (path: string) =>
    request("POST", `${BASE}/${project.fullPath}.git/info/lfs/locks`, null, {
      json: { path },
      headers: { Authorization: `Basic ${btoa(`matrix:${owner.token}`)}`, Accept: "application/vnd.git-lfs+json" },
    }).then((r) => ok<{ lock: { id: string } }>(r, 201, "LFS lock"));
  const byRole = {} as Fixture["byRole"];
  for (const r of ROLES) {
    const [move, clone, link, roleImage, lock] = await Promise.all([
      issue(`move-${r}`),
      issue(`clone-${r}`),
      issue(`link-${r}`),
      json<{ id: number }>(api.post(images, { multipart: imageForm("file") }), 201, "metric image"),
      lfsLock(`${unique(r)}.bin`),
    ]);
    byRole[r] = { moveIid: move.iid, cloneIid: clone.iid, linkIid: link.iid, imageId: roleImage.id, lockId: Number(lock.lock.id) };
  }
  return {
    group,
    project,
    targetId: target.id,
    reorderIid: reorder.iid,
    neighbourId: neighbour.id,
    alertIid: alert.iid,
    imageId: image.id,
    hookId: hook.id,
    epicId: epic.id,
    stateEventId: stateEvent.id,
    labelEventId: labelEvent.id,
    byRole,
  };
}

describe("authorization matrix: recent endpoints (projects and groups)", () => {
  let w: World;
  const clients = {} as Record<Role, Client>;
  const fixtures = {} as Record<Vis, Fixture>;

  beforeAll(async () => {
    w = await world();
    const roles = await roleClients(w);
    Object.assign(clients, roles.clients);
    for (const vis of VISIBILITIES) fixtures[vis] = await fixture(w, vis, roles.users);
  }, 300_000);

  it(`projects: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${PROJECT_ENDPOINTS.length} endpoints`, { timeout: 600_000 }, async () => {
    await runMatrix(PROJECT_ENDPOINTS, fixtures, clients);
  });

  it(`groups: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${GROUP_ENDPOINTS.length} endpoints`, { timeout: 600_000 }, async () => {
    await runMatrix(GROUP_ENDPOINTS, fixtures, clients);
  });
});
