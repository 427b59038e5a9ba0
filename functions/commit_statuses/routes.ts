import * as z from "zod";
import { authorize, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, notFound, paramsError } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { refsContaining, repoOf, resolveRevisions } from "../shared/git";
import { commitStatus, type CommitStatusRow } from "./entities";
import * as q from "./queries";
import { transition, type StatusState } from "./rules";

/**
 * Commit statuses (lib/api/commit_statuses.rb, GitLab 15.4): external statuses that CI systems post
 * on a commit. Both endpoints need a signed-in caller (`before { authenticate! }`).
 * Differs from GitLab: a status is not attached to a pipeline (`pipeline_id` is null) until the CI
 * domain links them; `pipeline_id` in a POST is therefore refused as an unknown pipeline.
 */
export const commitStatusesRoutes = router();

const ListStatuses = pageParams.extend({
  ref: p.string().optional(),
  stage: p.string().optional(),
  name: p.string().optional(),
  all: p.bool().optional(),
});

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

async function projectFor(c: Ctx, ability: "read_commit_status" | "create_commit_status"): Promise<ProjectWithAccess> {
  requireUser(c);
  const project = await findProject(c, c.req.param("id")!);
  // read_commit_status: reporters (and readers of a public project); create_commit_status: developers.
  authorize(c, ability === "read_commit_status" ? "download_code" : "push_code", project);
  return project;
}

/** GET /projects/:id/repository/commits/:sha/statuses */
commitStatusesRoutes.get("/projects/:id/repository/commits/:sha/statuses", async (c) => {
  const project = await projectFor(c, "read_commit_status");
  const params = await readParams(c, ListStatuses);
  const page = pageOf(params);
  const sha = c.req.param("sha")!;
  const oid = (await resolveRevisions(c.var.db(), repoOf(project), [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  let rows = await q.listStatuses(c.var.db(), project.id, oid, { ref: params.ref || undefined, stage: params.stage || undefined, name: params.name || undefined });
  if (!params.all) {
    // `latest`: the newest status of each name (and ref); older ones count as retried.
    const newest = new Map<string, CommitStatusRow>();
    for (const row of rows) newest.set(`${row.name}\0${row.ref ?? ""}`, row);
    const keep = new Set(newest.values());
    rows = rows.filter((row) => keep.has(row));
  }
  paginate(c, page, rows.length);
  return present(c, rows.slice(page.offset, page.offset + page.limit), commitStatus);
});

/** POST /projects/:id/statuses/:sha */
commitStatusesRoutes.post("/projects/:id/statuses/:sha", async (c) => {
  const project = await projectFor(c, "create_commit_status");
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
  if (params.pipeline_id !== undefined) throw notFound("Pipeline");
  let ref = params.ref;
  if (!ref) {
    const [branch] = await refsContaining(db, repo, oid, "branch");
    if (!branch) throw notFound("References for commit");
    ref = branch.name;
  }
  const name = params.name || params.context || "default";
  const user = c.var.actor!.user;
  const fields = { targetUrl: params.target_url, description: params.description, coverage };
  const open = await q.findOpenStatus(db, project.id, oid, name, ref);
  const from: StatusState = (open?.status as StatusState | undefined) ?? "created";
  const next = transition(from, params.state);
  if (!next.ok) throw apiError(next.message, 400);
  const row = open
    ? await q.updateStatus(db, open.id, from, { ...next, ...fields })
    : await q.insertStatus(db, { ...next, ...fields, projectId: project.id, sha: oid, ref, name, userId: user.id });
  // The open status moved meanwhile: GitLab's optimistic lock would fail the same way.
  if (!row) throw apiError("Status was updated by another request", 409);
  return present(c, { ...row, author: user }, commitStatus, {}, 201);
});
