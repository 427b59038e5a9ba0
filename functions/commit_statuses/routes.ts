import * as z from "zod";
import { apiError, notFound, paramsError } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { refsContaining, repoOf, resolveRevisions } from "../shared/git";
import { postExternalStatus } from "../shared/ci/coordinator";
import { commitStatus, CommitStatus } from "../entities/commit_statuses";
import { ListStatuses } from "./params";
import * as q from "./queries";

/**
 * Commit statuses (lib/api/commit_statuses.rb, GitLab 15.4): the CI jobs of a commit's pipelines and
 * the external statuses that CI systems post on it. Both endpoints need a signed-in caller
 * (`before { authenticate! }`). A posted status belongs to a pipeline, and counts in its status
 * (shared/ci/external.ts, written by the pipeline's coordinator).
 */
export const commitStatusesRoutes = router();

const PostStatus = z.object({
  state: p.oneOf("pending", "running", "success", "failed", "canceled"),
  ref: p.string().optional(),
  target_url: p.string().optional(),
  description: p.string().optional(),
  name: p.string().optional(),
  context: p.string().optional(),
  coverage: p.string().optional(),
  pipeline_id: p.int().optional(),
});

/** GET /projects/:id/repository/commits/:sha/statuses */
commitStatusesRoutes.get("/projects/:id/repository/commits/:sha/statuses", { params: ListStatuses, response: [CommitStatus] }, async (c) => {
  // `read_commit_status`: reporters, and readers of a public project (`download_code` here).
  const project = await authorizedProject(c, "download_code", { signedIn: true });
  const params = await readParams(c, ListStatuses);
  const page = pageOf(params);
  const sha = c.req.param("sha")!;
  const oid = (await resolveRevisions(c.var.db(), repoOf(project), [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  const rows = await q.listStatuses(c.var.db(), project.id, oid, params);
  paginate(c, page, rows.length);
  return present(c, rows.slice(page.offset, page.offset + page.limit), commitStatus);
});

/** POST /projects/:id/statuses/:sha */
commitStatusesRoutes.post("/projects/:id/statuses/:sha", { params: PostStatus, response: CommitStatus }, async (c) => {
  // `create_commit_status`: developers (`push_code` here).
  const project = await authorizedProject(c, "push_code", { signedIn: true });
  const params = await readParams(c, PostStatus);
  let coverage: number | undefined;
  if (params.coverage !== undefined) {
    coverage = Number(params.coverage);
    if (params.coverage.trim() === "" || !Number.isFinite(coverage)) throw paramsError("coverage is invalid");
  }
  const db = c.var.db();
  const repo = repoOf(project);
  const sha = c.req.param("sha")!;
  const oid = (await resolveRevisions(db, repo, [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  // `all_matching_pipelines.first`, then the ref: the caller's, the pipeline's, else the first branch
  // holding the commit. Without a matching pipeline, the coordinator finds or makes an external one.
  const match = { ref: params.ref, pipelineId: params.pipeline_id };
  const pipeline = await q.firstMatchingPipeline(db, project.id, oid, match);
  let ref = params.ref || pipeline?.ref;
  if (!ref) {
    const [branch] = await refsContaining(db, repo, oid, "branch");
    if (!branch) throw notFound("References for commit");
    ref = branch.name;
  }
  const name = params.name || params.context || "default";
  const user = c.var.actor!.user;
  const result = await postExternalStatus(c.env, {
    pipelineId: pipeline?.id ?? null,
    match,
    projectId: project.id,
    sha: oid,
    ref,
    name,
    state: params.state,
    userId: user.id,
    targetUrl: params.target_url,
    description: params.description,
    coverage,
  });
  if (!result.ok) throw apiError(result.message, result.status);
  const row = result.row;
  return present(c, { ...row, author: user }, commitStatus, {}, 201);
});
