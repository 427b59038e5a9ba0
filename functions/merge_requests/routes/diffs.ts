import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { recordNotFound } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { repoOf } from "../../shared/git";
import { findMergeRequest } from "../../shared/issuables/find";
import { commit, Commit } from "../../entities/commits";
import { diff, Diff } from "../../entities/repository";
import { mergeRequestChanges, mergeRequestDiff, mergeRequestDiffFull, type MergeRequestContext, type MergeRequestRow, MergeRequestChanges, MergeRequestDiff, MergeRequestDiffFull } from "../../entities/merge_requests";
import { refreshMergeRequest } from "../merging";
import * as q from "../queries";
import * as vq from "../version_queries";
import { limitDiffs, versionCommits, versionDiffs } from "../versions";
import { iidParam } from "./merge";

/**
 * What a merge request's code looks like (lib/api/merge_requests.rb, 15.x): commits, changes, diffs
 * and versions, read from its diff versions (merge_request_diffs) and the git core.
 */
export const diffRoutes = router();

const commitContext = (project: ProjectWithAccess) => ({ projectId: project.id, projectPath: project.fullPath });

/**
 * `find_merge_request_with_access`, then the version GitLab would have made by now: RefreshService
 * makes one on every push, ours is made by the mergeability check when the source head moved.
 */
async function findWithVersion(c: Ctx) {
  const iid = iidParam(c);
  const project = await findProject(c, c.req.param("id")!);
  const mr = await findMergeRequest(c, project, iid);
  await refreshMergeRequest(c.var.db(), project, mr);
  return { project, mr, version: await vq.latestVersion(c.var.db(), mr.id) };
}

/** GET /projects/:id/merge_requests/:merge_request_iid/commits (lib/api/merge_requests.rb): the newest version's commits, newest first. */
diffRoutes.get("/projects/:id/merge_requests/:merge_request_iid/commits", { params: pageParams, response: [Commit] }, async (c) => {
  const params = await readParams(c, pageParams);
  const { project, version } = await findWithVersion(c);
  const page = pageOf(params);
  const commits = await versionCommits(c.var.db(), repoOf(project), version);
  paginate(c, page, commits.length);
  return present(c, commits.slice(page.offset, page.offset + page.limit), commit, commitContext(project));
});

const ChangesParams = z.object({ access_raw_diffs: p.bool().optional() });

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/changes (lib/api/merge_requests.rb): the merge
 * request with the newest version's diffs, cut at the diff limits unless `access_raw_diffs=true`.
 * `overflow` says whether the limits cut the list (GitLab reads it from the stored version).
 */
diffRoutes.get("/projects/:id/merge_requests/:merge_request_iid/changes", { params: ChangesParams, response: MergeRequestChanges }, async (c) => {
  const params = await readParams(c, ChangesParams);
  const { project, mr, version } = await findWithVersion(c);
  const [row, diffs] = await Promise.all([q.mergeRequestById(c.var.db(), c.var.actor, mr.id), versionDiffs(c.var.db(), repoOf(project), version)]);
  const limited = limitDiffs(diffs);
  const changes = params.access_raw_diffs ? diffs : limited.diffs;
  return present<MergeRequestRow & { changes: typeof diffs; overflow: boolean }, Partial<MergeRequestContext>>(
    c,
    { ...row, changes, overflow: limited.overflow },
    mergeRequestChanges,
    { fromProject: { id: project.id, namespaceId: project.namespaceId } },
  );
});

/** GET /projects/:id/merge_requests/:merge_request_iid/diffs (lib/api/merge_requests.rb, 15.7+): the newest version's diffs, a page at a time. */
diffRoutes.get("/projects/:id/merge_requests/:merge_request_iid/diffs", { params: pageParams, response: [Diff] }, async (c) => {
  const params = await readParams(c, pageParams);
  const { project, version } = await findWithVersion(c);
  const page = pageOf(params);
  const diffs = await versionDiffs(c.var.db(), repoOf(project), version);
  paginate(c, page, diffs.length);
  return present(c, diffs.slice(page.offset, page.offset + page.limit), diff);
});

/** GET /projects/:id/merge_requests/:merge_request_iid/versions (lib/api/merge_requests.rb): newest first. */
diffRoutes.get("/projects/:id/merge_requests/:merge_request_iid/versions", { params: pageParams, response: [MergeRequestDiff] }, async (c) => {
  const params = await readParams(c, pageParams);
  const { mr } = await findWithVersion(c);
  const page = pageOf(params);
  const { rows, total } = await vq.listVersions(c.var.db(), mr.id, page);
  paginate(c, page, total);
  return present(c, rows, mergeRequestDiff);
});

const VersionParams = z.object({ merge_request_iid: p.int(), version_id: p.int() });

/** GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id (lib/api/merge_requests.rb): with its commits and diffs. */
diffRoutes.get("/projects/:id/merge_requests/:merge_request_iid/versions/:version_id", { params: VersionParams, response: MergeRequestDiffFull }, async (c) => {
  const params = await readParamsWithPath(c, VersionParams);
  const iid = String(params.merge_request_iid);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findMergeRequest(c, project, iid);
  // `merge_request_diffs.find`: ActiveRecord::RecordNotFound is `404 Not found`.
  const version = params.version_id > 2147483647 ? null : await vq.versionById(c.var.db(), mr.id, params.version_id);
  if (!version) throw recordNotFound();
  const repo = repoOf(project);
  const [commits, diffs] = await Promise.all([versionCommits(c.var.db(), repo, version), versionDiffs(c.var.db(), repo, version)]);
  return present(c, { ...version, commits, diffs }, mergeRequestDiffFull, commitContext(project));
});
