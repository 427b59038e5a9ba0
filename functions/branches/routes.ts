import * as z from "zod";
import { mirrorsForPush } from "../shared/remote_mirrors";
import type { GitCommitRow } from "./queries";
import { allowed, authorize, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, notFound } from "../kernel/errors";
import { isValidBranchName, readCommitRows, readRefsWithCommits, repoOf, searchRefs, compareRefNames, type Repo } from "../shared/git";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { branchesAccess, callerOf } from "../shared/protected_branches/access";
import { branch, type BranchRow, Branch } from "../entities/branches";
import * as q from "./queries";
import * as s from "./services";

/**
 * Repository branches (lib/api/branches.rb, GitLab 15.4). Every endpoint first finds the project and
 * checks `read_code` (the API's `before` block), then validates parameters.
 * Not built: the deprecated `PUT …/protect` and `…/unprotect` and `DELETE …/merged_branches`.
 */
export const branchesRoutes = router();

// Differs from GitLab: page 1 is not served through Gitaly's keyset pager (GitLab's
// `branch_list_keyset_pagination` flag is off by default in 15.4); every page has offset headers.
const ListBranches = pageParams.extend({
  search: p.string().optional().describe("Return list of branches matching the search criteria"),
  sort: p.oneOf("name_asc", "updated_asc", "updated_desc").optional().describe("Return list of branches sorted by the given field"),
  page_token: p.string().optional().describe("Name of branch to start the pagination from"),
});

const CreateBranch = z.object({ branch: p.nonBlank().describe("The name of the branch"), ref: p.nonBlank().describe("Create branch from commit sha or existing branch") });

/** `find_branch!` (lib/api/helpers.rb): an invalid name is a 400, not a 404. */
function branchParam(c: Ctx): string {
  const name = c.req.param("branch")!;
  if (!isValidBranchName(name)) throw apiError("The branch refname is invalid", 400);
  return name;
}

/** Git's `for-each-ref` order: bytewise by name. */
const byName = compareRefNames;

/**
 * The entity rows for `tips`: `merged` is `Repository#merged_branch_names` (tips that the default
 * branch reaches, other than its own tip); one walk for all of them.
 */
async function branchRows(c: Ctx, project: ProjectWithAccess, repo: Repo, tips: { name: string; commit: GitCommitRow }[], head: GitCommitRow | null): Promise<BranchRow[]> {
  const candidates = head ? tips.filter((t) => t.commit.oid !== head.oid && t.commit.generation < head.generation) : [];
  const unique = [...new Map(candidates.map((t) => [t.commit.oid, { oid: t.commit.oid, generation: t.commit.generation }])).values()];
  const merged = head ? await q.reachableFrom(c.var.db(), repo, head.oid, unique) : new Set<string>();
  const canPush = !!c.var.actor && allowed(c.var.actor, "push_code", project);
  const access = await branchesAccess(c.var.db(), { ...project, emptyRepo: false }, callerOf(c.var.actor, project), tips.map((t) => t.name));
  return tips.map((t) => {
    const a = access.get(t.name)!;
    return {
      name: t.name,
      commit: t.commit,
      merged: merged.has(t.commit.oid) && t.commit.oid !== head?.oid,
      canPush: canPush && a.canPush,
      protected: a.protected,
      developersCanPush: a.developersCanPush,
      developersCanMerge: a.developersCanMerge,
      isDefault: project.defaultBranch === t.name,
    };
  });
}

function presentBranches(c: Ctx, project: ProjectWithAccess, rows: BranchRow | BranchRow[], status: 200 | 201 = 200) {
  return present(c, rows, branch, { projectId: project.id, projectPath: project.fullPath }, status);
}

/** GET /projects/:id/repository/branches (lib/api/branches.rb) */
branchesRoutes.get("/projects/:id/repository/branches", { params: ListBranches, response: [Branch] }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const params = await readParams(c, ListBranches);
  const page = pageOf(params);
  const db = c.var.db();
  const repo = repoOf(project);
  const tips = await q.listBranchTips(db, repo);
  // Gitaly's FindLocalBranches: by name, or by committer date with the name breaking ties.
  const time = (t: q.BranchTip) => t.committedAt?.getTime() ?? 0;
  const sort = params.sort ?? "name_asc";
  tips.sort((a, b) =>
    sort === "updated_asc" ? time(a) - time(b) || byName(a.name, b.name) : sort === "updated_desc" ? time(b) - time(a) || byName(a.name, b.name) : byName(a.name, b.name),
  );
  const found = searchRefs(tips, params.search);
  const onPage = found.slice(page.offset, page.offset + page.limit);
  const head = project.defaultBranch ? tips.find((t) => t.name === project.defaultBranch) : undefined;
  const commits = await readCommitRows(db, repo.poolId, [...onPage.map((t) => t.target), ...(head ? [head.target] : [])]);
  const rows = await branchRows(
    c,
    project,
    repo,
    onPage.filter((t) => commits.has(t.target)).map((t) => ({ name: t.name, commit: commits.get(t.target)! })),
    head ? commits.get(head.target) ?? null : null,
  );
  paginate(c, page, found.length);
  return presentBranches(c, project, rows);
});

/**
 * GET /projects/:id/repository/branches/:branch (lib/api/branches.rb). HEAD answers 204 when the branch
 * exists and 404 otherwise, without validating the name (`branch_exists?`).
 */
branchesRoutes.get("/projects/:id/repository/branches/:branch", { response: Branch, errors: [204] }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const repo = repoOf(project);
  const name = c.req.param("branch")!;
  if (c.req.method === "HEAD") {
    const exists = (await readRefsWithCommits(c.var.db(), repo, [`refs/heads/${name}`])).size > 0;
    if (!exists) throw notFound();
    return c.body(null, 204);
  }
  branchParam(c);
  const ref = `refs/heads/${name}`;
  const headRef = project.defaultBranch ? `refs/heads/${project.defaultBranch}` : null;
  const refs = await readRefsWithCommits(c.var.db(), repo, headRef ? [ref, headRef] : [ref]);
  const found = refs.get(ref);
  if (!found?.commit) throw notFound("Branch");
  const [row] = await branchRows(c, project, repo, [{ name, commit: found.commit }], headRef ? refs.get(headRef)?.commit ?? null : null);
  return presentBranches(c, project, row);
});

/** POST /projects/:id/repository/branches (lib/api/branches.rb, app/services/branches/create_service.rb) */
branchesRoutes.post("/projects/:id/repository/branches", { params: CreateBranch, response: Branch }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const params = await readParams(c, CreateBranch);
  authorize(c, "push_code", project);
  const actor = requireUser(c);
  const created = await s.createBranchFromRef(c.var.db(), repoOf(project), project, actor.user, { branch: params.branch, ref: params.ref, caller: callerOf(actor, project) });
  const current = { ...project, defaultBranch: created.repo.defaultBranch };
  const [row] = await branchRows(c, current, created.repo, [{ name: params.branch, commit: created.commit }], created.head);
  // Push mirrors follow every ref change (shared/remote_mirrors).
  c.executionCtx.waitUntil(mirrorsForPush(c.env, project.id));
  return presentBranches(c, current, row, 201);
});

/** DELETE /projects/:id/repository/branches/:branch (lib/api/branches.rb, app/services/branches/delete_service.rb) */
branchesRoutes.delete("/projects/:id/repository/branches/:branch", async (c) => {
  const project = await authorizedProject(c, "read_code");
  authorize(c, "push_code", project);
  const actor = requireUser(c);
  const name = branchParam(c);
  await s.deleteBranch(c.var.db(), repoOf(project), { name, userId: actor.user.id, ifUnmodifiedSince: c.req.header("if-unmodified-since") });
  // Push mirrors follow every ref change (shared/remote_mirrors).
  c.executionCtx.waitUntil(mirrorsForPush(c.env, project.id));
  return c.body(null, 204);
});
