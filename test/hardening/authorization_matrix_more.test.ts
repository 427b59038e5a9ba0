import { beforeAll, describe, it } from "vitest";
import { BASE, type Client } from "../helpers/client";
import { unique, world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";
import { FULL, ok, runMatrix, type Endpoint } from "./matrix";
import { ROLES, roleClients, VISIBILITIES, type Role, type Vis } from "./roles";

/**
 * The authorization matrix, third part: more project and group endpoints
 * (events, project users/groups/languages/storage/housekeeping, uploads, label and milestone promotion,
 * milestone issues and merge requests, snippet update/raw/file raw/user agent detail, subscriptions,
 * issue statistics, protected branches for users and groups, approvals, external status checks; group
 * share/unshare/transfer, group labels and milestones). Same rule as the other tables (`expected` in
 * matrix.ts), following GitLab 15.4's app/policies and lib/api.
 *
 * Here the roles are members of the GROUP and the project lives in it (the other matrices add them to
 * the project), which promotion needs (`admin_label` / `admin_milestone` on the group too).
 */
type Fixture = {
  group: TestGroup;
  project: TestProject;
  issueIid: number;
  unsubscribeIid: number;
  mrIid: number;
  milestoneId: number;
  snippetId: number;
  labelId: number;
  linkedGroupId: number;
  ownerId: number;
  groupLabel: string;
  groupMilestoneId: number;
  byRole: Record<
    Role,
    {
      promoteLabel: string;
      promoteMilestoneId: number;
      deleteGroupLabel: string;
      deleteGroupMilestoneId: number;
      shareWithId: number;
      unshareId: number;
      transferGroupId: number;
    }
  >;
};

const SKIP = "[skip ci]";
const P = (f: Fixture) => `/projects/${f.project.id}`;
const G = (f: Fixture) => `/groups/${f.group.id}`;

function uploadForm(): FormData {
  const form = new FormData();
  form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
  return form;
}

/** THE table (projects). */
const PROJECT_ENDPOINTS: Endpoint<Fixture>[] = [
  // lib/api/events.rb: `user_project` only; the events are filtered by what the caller may read.
  { name: "project events", method: "GET", path: (f) => `${P(f)}/events`, min: "guest", readers: true, ok: 200 },
  // lib/api/projects.rb: `:id/users`, `:id/groups`, `:id/languages` need only `user_project`.
  { name: "project users", method: "GET", path: (f) => `${P(f)}/users`, min: "guest", readers: true, ok: 200 },
  { name: "project groups", method: "GET", path: (f) => `${P(f)}/groups`, min: "guest", readers: true, ok: 200 },
  { name: "project languages", method: "GET", path: (f) => `${P(f)}/languages`, min: "guest", readers: true, ok: 200 },
  // `authenticated_as_admin!` first, then `user_project`.
  { name: "project storage", method: "GET", path: (f) => `${P(f)}/storage`, min: "owner", adminFirst: true, ok: 200 },
  // `authorize_admin_project`.
  { name: "housekeeping", method: "POST", path: (f) => `${P(f)}/housekeeping`, min: "maintainer", ok: 201 },
  // `authorize! :upload_file`: guest access (readers of public and internal projects have it).
  { name: "upload", method: "POST", path: (f) => `${P(f)}/uploads`, multipart: () => uploadForm(), min: "guest", readers: true, ok: 201 },
  // lib/api/labels.rb (`before { authenticate! }`): `authorize! :admin_label` (reporter).
  { name: "promote label", method: "PUT", path: (f, r) => `${P(f)}/labels/${f.byRole[r].promoteLabel}/promote`, min: "reporter", ok: 200 },
  // lib/api/milestones.rb (`before { authenticate! }`): read_milestone; promote needs admin_milestone on
  // the project and on its group.
  { name: "milestone issues", method: "GET", path: (f) => `${P(f)}/milestones/${f.milestoneId}/issues`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "milestone merge requests", method: "GET", path: (f) => `${P(f)}/milestones/${f.milestoneId}/merge_requests`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "promote milestone", method: "POST", path: (f, r) => `${P(f)}/milestones/${f.byRole[r].promoteMilestoneId}/promote`, min: "reporter", ok: 200 },
  // lib/api/project_snippets.rb (`before { check_snippets_enabled }` looks the project up first). The
  // snippet has the project's visibility; update_snippet of another's snippet is a maintainer ability.
  { name: "update snippet", method: "PUT", path: (f) => `${P(f)}/snippets/${f.snippetId}`, body: () => ({ title: unique("t") }), min: "maintainer", ok: 200 },
  { name: "snippet raw", method: "GET", path: (f) => `${P(f)}/snippets/${f.snippetId}/raw`, min: "guest", readers: true, ok: 200 },
  { name: "snippet file raw", method: "GET", path: (f) => `${P(f)}/snippets/${f.snippetId}/files/main/a.txt/raw`, min: "guest", readers: true, ok: 200 },
  { name: "snippet user agent detail", method: "GET", path: (f) => `${P(f)}/snippets/${f.snippetId}/user_agent_detail`, min: "owner", adminOnly: true, ok: 200 },
  // lib/api/subscriptions.rb (`before { authenticate! }`): the subscribable as the caller reads it.
  { name: "subscribe issue", method: "POST", path: (f) => `${P(f)}/issues/${f.issueIid}/subscribe`, min: "guest", readers: true, ok: 201 },
  { name: "unsubscribe issue", method: "POST", path: (f) => `${P(f)}/issues/${f.unsubscribeIid}/unsubscribe`, min: "guest", readers: true, ok: 201 },
  // Merge requests: `find_merge_request_with_access(id, :update_merge_request)` finds the merge request,
  // then authorizes, so a guest of a private project (no read_merge_request) gets 403, not 404.
  { name: "subscribe MR", method: "POST", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/subscribe`, min: "guest", readers: true, readMin: "reporter", unreadable: 403, ok: 201 },
  { name: "subscribe label", method: "POST", path: (f) => `${P(f)}/labels/${f.labelId}/subscribe`, min: "guest", readers: true, ok: 201 },
  // lib/api/issues.rb: `user_project` only.
  { name: "project issues statistics", method: "GET", path: (f) => `${P(f)}/issues_statistics`, min: "guest", readers: true, ok: 200 },
  // ee/lib/ee/api/protected_branches.rb: `authorize_admin_project`; a user who is a member, a group the
  // project is shared with.
  {
    name: "protect branch for a user",
    method: "POST",
    path: (f) => `${P(f)}/protected_branches`,
    body: (f) => ({ name: unique("pu"), allowed_to_push: [{ user_id: f.ownerId }] }),
    min: "maintainer",
    ok: 201,
  },
  {
    name: "protect branch for a group",
    method: "POST",
    path: (f) => `${P(f)}/protected_branches`,
    body: (f) => ({ name: unique("pg"), allowed_to_merge: [{ group_id: f.linkedGroupId }] }),
    min: "maintainer",
    ok: 201,
  },
  // ee/lib/api/project_approvals.rb (`before { authenticate! }`): changing the settings is a maintainer's.
  { name: "change approval settings", method: "POST", path: (f) => `${P(f)}/approvals`, body: () => ({ reset_approvals_on_push: true }), min: "maintainer", ok: 201 },
  // ee/lib/api/merge_request_approvals.rb: approvals_required with update_merge_request (developer),
  // after `find_merge_request_with_access` (403 for a guest of a private project).
  { name: "MR approvals", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/approvals`, min: "reporter", readers: true, readMin: "reporter", unreadable: 403, ok: 200 },
  { name: "MR approvals required", method: "POST", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/approvals`, body: () => ({ approvals_required: 1 }), min: "developer", readMin: "reporter", unreadable: 403, ok: 201 },
  // `find_project_merge_request` (MergeRequestsFinder: unreadable is 404), then `unauthorized! unless
  // current_user.bot? && can?(:reset_merge_request_approvals)`: no human may.
  { name: "reset approvals", method: "PUT", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/reset_approvals`, min: "owner", readMin: "reporter", nobody: true, denied: 401, ok: 202 },
  // ee/lib/api/status_checks.rb (`before { authenticate! }`): admin_project, else 401.
  { name: "list status checks", method: "GET", path: (f) => `${P(f)}/external_status_checks`, min: "maintainer", signedIn: true, denied: 401, ok: 200 },
  {
    name: "create status check",
    method: "POST",
    path: (f) => `${P(f)}/external_status_checks`,
    body: () => ({ name: unique("check"), external_url: `https://example.com/${unique("c")}` }),
    min: "maintainer",
    denied: 401,
    ok: 201,
  },
  // approve_merge_request: a member who may update the merge request (developer), after
  // `find_merge_request_with_access` (403 for a guest of a private project).
  { name: "MR status checks", method: "GET", path: (f) => `${P(f)}/merge_requests/${f.mrIid}/status_checks`, min: "developer", signedIn: true, readMin: "reporter", unreadable: 403, ok: 200 },
  // Git LFS (lib/api … lfs_request.rb `lfs_check_access!`): Basic authentication; download needs
  // download_code (reporters, readers of public and internal projects), upload push_code (developers);
  // 403 for who reads the project, 404 for who does not, 401 (a challenge) for anonymous callers.
  {
    name: "LFS batch download",
    method: "POST",
    path: (f) => `${BASE}/${f.project.fullPath}.git/info/lfs/objects/batch`,
    body: () => ({ operation: "download", objects: [{ oid: "a".repeat(64), size: 1 }] }),
    basic: true,
    challenge: true,
    min: "reporter",
    readers: true,
    ok: 200,
  },
  {
    name: "LFS batch upload",
    method: "POST",
    path: (f) => `${BASE}/${f.project.fullPath}.git/info/lfs/objects/batch`,
    body: () => ({ operation: "upload", objects: [{ oid: "b".repeat(64), size: 1 }] }),
    basic: true,
    challenge: true,
    min: "developer",
    ok: 200,
  },
  // Repositories::LfsLocksApiController: `index` is a download request (readers), `create` an upload
  // request (push_code, developers); the same 401/403/404 as the batch API.
  {
    name: "LFS locks list",
    method: "GET",
    path: (f) => `${BASE}/${f.project.fullPath}.git/info/lfs/locks`,
    basic: true,
    challenge: true,
    min: "reporter",
    readers: true,
    ok: 200,
  },
  {
    name: "LFS lock create",
    method: "POST",
    path: (f) => `${BASE}/${f.project.fullPath}.git/info/lfs/locks`,
    body: () => ({ path: `${unique("locked")}.bin` }),
    basic: true,
    challenge: true,
    min: "developer",
    ok: 201,
  },
];

/** THE table (groups): app/policies/group_policy.rb, lib/api/group_labels.rb, group_milestones.rb, groups.rb. */
const GROUP_ENDPOINTS: Endpoint<Fixture>[] = [
  { name: "list group labels", method: "GET", path: (f) => `${G(f)}/labels`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "create group label", method: "POST", path: (f) => `${G(f)}/labels`, body: () => ({ name: unique("gl"), color: "#00ff00" }), min: "reporter", ok: 201 },
  { name: "update group label", method: "PUT", path: (f) => `${G(f)}/labels/${f.groupLabel}`, body: () => ({ description: unique("d") }), min: "reporter", ok: 200 },
  { name: "delete group label", method: "DELETE", path: (f, r) => `${G(f)}/labels/${f.byRole[r].deleteGroupLabel}`, min: "reporter", ok: 204 },
  { name: "list group milestones", method: "GET", path: (f) => `${G(f)}/milestones`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "create group milestone", method: "POST", path: (f) => `${G(f)}/milestones`, body: () => ({ title: unique("gm") }), min: "reporter", ok: 201 },
  { name: "update group milestone", method: "PUT", path: (f) => `${G(f)}/milestones/${f.groupMilestoneId}`, body: () => ({ description: unique("d") }), min: "reporter", ok: 200 },
  { name: "delete group milestone", method: "DELETE", path: (f, r) => `${G(f)}/milestones/${f.byRole[r].deleteGroupMilestoneId}`, min: "reporter", ok: 204 },
  { name: "group milestone issues", method: "GET", path: (f) => `${G(f)}/milestones/${f.groupMilestoneId}/issues`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "group milestone merge requests", method: "GET", path: (f) => `${G(f)}/milestones/${f.groupMilestoneId}/merge_requests`, min: "guest", readers: true, signedIn: true, ok: 200 },
  // lib/api/subscriptions.rb (`before { authenticate! }`): a group label as the caller reads the group.
  { name: "subscribe group label", method: "POST", path: (f) => `${G(f)}/labels/${f.groupLabel}/subscribe`, min: "guest", readers: true, signedIn: true, ok: 201 },
  { name: "group issues statistics", method: "GET", path: (f) => `${G(f)}/issues_statistics`, min: "guest", readers: true, ok: 200 },
  // groups.rb: share, unshare (see groups/routes/share.ts for a deliberate difference) and transfer
  // (`authorize! :admin_group`) are the owner's.
  // Groups::GroupLinks::CreateService answers `error('Not Found', 404)` without admin_group_member.
  { name: "share group", method: "POST", path: (f) => `${G(f)}/share`, body: (f, r) => ({ group_id: f.byRole[r].shareWithId, group_access: 30 }), min: "owner", denied: 404, ok: 201 },
  { name: "unshare group", method: "DELETE", path: (f, r) => `${G(f)}/share/${f.byRole[r].unshareId}`, min: "owner", ok: 204 },
  // groups.rb `:id/transfer_locations` (15.4): `authorize! :admin_group` once the group is found.
  { name: "group transfer locations", method: "GET", path: (f) => `${G(f)}/transfer_locations`, min: "owner", ok: 200 },
  // Each role transfers a subgroup of its own (which it reads through the group) to the top level.
  { name: "transfer group", method: "POST", path: (f, r) => `/groups/${f.byRole[r].transferGroupId}/transfer`, min: "owner", ok: 201 },
];

async function fixture(w: World, vis: Vis, users: Record<"guest" | "reporter" | "developer" | "maintainer" | "owner", TestUser>, clients: Record<Role, Client>): Promise<Fixture> {
  const { guest, reporter, developer, maintainer, owner } = users;
  const group = await w.group({ visibility: vis, guests: [guest], reporters: [reporter], developers: [developer], maintainers: [maintainer], owners: [owner] });
  const project = await w.project({ visibility: vis, group });
  const api = w.as(owner);
  const p = `/projects/${project.id}`;
  const g = `/groups/${group.id}`;
  await api.post(`${p}/repository/commits`, { json: { branch: "main", commit_message: `setup ${SKIP}`, actions: [{ action: "create", file_path: "README.md", content: "readme" }] } }).then((r) => ok(r, 201, "commit"));
  await api
    .post(`${p}/repository/commits`, { json: { branch: "feature", start_branch: "main", commit_message: `feature ${SKIP}`, actions: [{ action: "create", file_path: "f.txt", content: "f" }] } })
    .then((r) => ok(r, 201, "commit"));
  const json = <T>(res: Promise<Response>, status: number, what: string) => res.then((r) => ok<T>(r, status, what));
  const [issue, unsub, mr, milestone, snippet, label, groupLabel, groupMilestone, linked] = await Promise.all([
    // Not the owner's: an author is subscribed to what they open (304 on subscribe).
    json<{ iid: number }>(w.root.post(`${p}/issues`, { json: { title: "i" } }), 201, "issue"),
    json<{ iid: number }>(api.post(`${p}/issues`, { json: { title: "unsubscribe" } }), 201, "issue"),
    json<{ iid: number }>(w.root.post(`${p}/merge_requests`, { json: { title: "m", source_branch: "feature", target_branch: "main" } }), 201, "MR"),
    json<{ id: number }>(api.post(`${p}/milestones`, { json: { title: "m1" } }), 201, "milestone"),
    json<{ id: number }>(api.post(`${p}/snippets`, { json: { title: "s", file_name: "a.txt", content: "x", visibility: vis }, headers: { "User-Agent": "matrix/1.0" } }), 201, "snippet"),
    json<{ id: number }>(api.post(`${p}/labels`, { json: { name: "shared", color: "#ff0000" } }), 201, "label"),
    json<{ name: string }>(api.post(`${g}/labels`, { json: { name: "gshared", color: "#ff0000" } }), 201, "group label"),
    json<{ id: number }>(api.post(`${g}/milestones`, { json: { title: "gm1" } }), 201, "group milestone"),
    w.group({ visibility: "public", owners: [owner] }),
  ]);
  await json(api.post(`${p}/share`, { json: { group_id: linked.id, group_access: 30 } }), 201, "project share");
  const byRole = {} as Fixture["byRole"];
  for (const r of ROLES) {
    const [promoteLabel, promoteMilestone, deleteGroupLabel, deleteGroupMilestone, shareWith, unshare, transfer] = await Promise.all([
      json<{ name: string }>(api.post(`${p}/labels`, { json: { name: `promote-${r}`, color: "#ff0000" } }), 201, "label"),
      json<{ id: number }>(api.post(`${p}/milestones`, { json: { title: `promote-${r}` } }), 201, "milestone"),
      json<{ name: string }>(api.post(`${g}/labels`, { json: { name: `delete-${r}`, color: "#ff0000" } }), 201, "group label"),
      json<{ id: number }>(api.post(`${g}/milestones`, { json: { title: `delete-${r}` } }), 201, "group milestone"),
      w.group({ visibility: "public" }),
      w.group({ visibility: "public" }),
      w.group({ visibility: vis, parent: group }),
    ]);
    await json(api.post(`${g}/share`, { json: { group_id: unshare.id, group_access: 30 } }), 201, "group share");
    // Subscribed beforehand, so that unsubscribing changes something (GitLab answers 304 otherwise).
    const sub = await clients[r].post(`${p}/issues/${unsub.iid}/subscribe`);
    await sub.arrayBuffer();
    byRole[r] = {
      promoteLabel: promoteLabel.name,
      promoteMilestoneId: promoteMilestone.id,
      deleteGroupLabel: deleteGroupLabel.name,
      deleteGroupMilestoneId: deleteGroupMilestone.id,
      shareWithId: shareWith.id,
      unshareId: unshare.id,
      transferGroupId: transfer.id,
    };
  }
  return {
    group,
    project,
    issueIid: issue.iid,
    unsubscribeIid: unsub.iid,
    mrIid: mr.iid,
    milestoneId: milestone.id,
    snippetId: snippet.id,
    labelId: label.id,
    linkedGroupId: linked.id,
    ownerId: owner.id,
    groupLabel: groupLabel.name,
    groupMilestoneId: groupMilestone.id,
    byRole,
  };
}

describe("authorization matrix: more endpoints (projects and groups)", () => {
  let w: World;
  const clients = {} as Record<Role, Client>;
  const fixtures = {} as Record<Vis, Fixture>;

  beforeAll(async () => {
    w = await world();
    const roles = await roleClients(w);
    Object.assign(clients, roles.clients);
    for (const vis of VISIBILITIES) fixtures[vis] = await fixture(w, vis, roles.users, clients);
  }, 300_000);

  it(`projects: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${PROJECT_ENDPOINTS.length} endpoints`, { timeout: 600_000 }, async () => {
    await runMatrix(PROJECT_ENDPOINTS, fixtures, clients);
  });

  it(`groups: ${ROLES.length} roles × ${FULL ? VISIBILITIES.length : 1} visibilities × ${GROUP_ENDPOINTS.length} endpoints`, { timeout: 600_000 }, async () => {
    await runMatrix(GROUP_ENDPOINTS, fixtures, clients);
  });
});
