import { PipelineBasic } from "../../entities/pipelines";
import { allowed } from "../../kernel/abilities";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { findMergeRequest } from "../../shared/issuables/find";
import { mergeRequestPipeline } from "../../entities/merge_requests";
import { refreshMergeRequest } from "../merging";
import { mergeRequestCommitShas, mergeRequestPipelines } from "../pipeline_queries";
import { repoOf } from "../../shared/git";

export const pipelinesRoutes = router();

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/pipelines (lib/api/merge_requests.rb): the
 * merge request's pipelines, newest first, as PipelineBasic; an empty list for whoever reads the
 * merge request but not the project's pipelines (Ci::PipelinesForMergeRequestFinder answers `none`).
 */
pipelinesRoutes.get("/projects/:id/merge_requests/:merge_request_iid/pipelines", { params: pageParams, response: [PipelineBasic] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await findProject(c, c.req.param("id"));
  const found = await findMergeRequest(c, project, c.req.param("merge_request_iid"));
  const page = pageOf(params);
  let list: Awaited<ReturnType<typeof mergeRequestPipelines>> = { rows: [], total: 0 };
  if (allowed(c.var.actor, "read_pipeline", project)) {
    // The current source head becomes a diff version first, as the single GET does.
    const mr = await refreshMergeRequest(c.var.db(), project, found);
    list = await mergeRequestPipelines(c.var.db(), mr, await mergeRequestCommitShas(c.var.db(), repoOf(project), mr.id), page);
  }
  paginate(c, page, list.total);
  return present(c, list.rows, mergeRequestPipeline);
});
