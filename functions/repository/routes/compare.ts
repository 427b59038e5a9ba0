import * as z from "zod";
import { authorize, type ProjectWithAccess } from "../../kernel/abilities";
import { apiError, notFound } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { commit, Commit } from "../../entities/commits";
import { compareCommits, mergeBase, readCommitRows, repoOf, resolveCommitRows, resolveRevisions } from "../../shared/git";
import { compare, Compare as CompareEntity } from "../../entities/repository";

/** Compare and merge base (lib/api/repositories.rb, GitLab 15.4), behind `authorize! :download_code`. */
export const compareRoutes = router();

const commitContext = (project: ProjectWithAccess) => ({ projectId: project.id, projectPath: project.fullPath });

const Compare = z.object({
  from: p.string().describe("The commit, branch name, or tag name to start comparison"),
  to: p.string().describe("The commit, branch name, or tag name to stop comparison"),
  from_project_id: p.id().optional().describe("The project to compare from"),
  straight: p.bool().optional().describe("Comparison method, `true` for direct comparison between `from` and `to` (`from`..`to`), `false` to compare using merge base (`from`...`to`)"),
});

/** GET /projects/:id/repository/compare (lib/api/repositories.rb, CompareService, Gitlab::Git::Compare) */
compareRoutes.get("/projects/:id/repository/compare", { params: Compare, response: CompareEntity }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, Compare);
  // MergeRequestTargetProjectFinder. Differs from GitLab: only the project itself is accepted, not the
  // other readable projects of its fork network (comparing across forks is not built).
  if (params.from_project_id !== undefined && params.from_project_id !== project.id) {
    throw apiError(`Target project id:${params.from_project_id} is not a fork of project id:${c.req.param("id")}`, 400);
  }
  const repo = repoOf(project);
  const rows = await resolveCommitRows(c.var.db(), repo, [params.from, params.to]);
  const from = rows.get(params.from);
  const to = rows.get(params.to);
  if (!from || !to) throw notFound("Ref");
  const result = await compareCommits(c.var.db(), repo, from, to, params.straight ?? false);
  return present(c, result, compare, commitContext(project));
});

const MergeBase = z.object({ refs: p.strings({ comma: true }).describe("The refs to find the common ancestor of, multiple refs can be passed") });

/** GET /projects/:id/repository/merge_base (lib/api/repositories.rb, Gitlab::Git::MergeBase) */
compareRoutes.get("/projects/:id/repository/merge_base", { params: MergeBase, response: Commit }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, MergeBase);
  if (params.refs.length < 2) throw apiError("Provide at least 2 refs", 400);
  const repo = repoOf(project);
  const resolved = await resolveRevisions(c.var.db(), repo, params.refs);
  const unknown = params.refs.filter((ref) => !resolved.get(ref));
  if (unknown.length) throw apiError(`Could not find ${unknown.length === 1 ? "ref" : "refs"}: ${unknown.join(", ")}`, 400);
  const base = await mergeBase(c.var.db(), repo, params.refs.map((ref) => resolved.get(ref)!));
  if (!base) throw notFound("Merge Base");
  const row = (await readCommitRows(c.var.db(), repo.poolId, [base])).get(base);
  if (!row) throw notFound("Merge Base");
  return present(c, row, commit, commitContext(project));
});
