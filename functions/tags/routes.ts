import * as z from "zod";
import { mirrorsForPush } from "../shared/remote_mirrors";
import { authorize, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { compareRefNames, decodeTag, readCommitRows, readObjects, readRefsWithCommits, repoOf, searchRefs, type Repo } from "../shared/git";
import { authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { tag, type TagRow, Tag } from "../entities/tags";
import { callerOf } from "../shared/protected_branches/access";
import { refMatches } from "../shared/protected_branches/rules";
import * as q from "./queries";
import * as s from "./services";
import { versionCompare } from "./versioncmp";

/**
 * Repository tags (lib/api/tags.rb, GitLab 15.4). Every endpoint first finds the project and checks
 * `read_code` (the API's `before` block), then validates parameters. Creating and deleting need
 * `admin_tag`, which GitLab gives developers and refuses on archived projects, as `push_code`.
 * Protected tags (shared/protected_tags) are enforced on create and delete. Not built: `GET …/tags/:tag_name/signature`.
 */
export const tagsRoutes = router();

// Differs from GitLab: all pages carry offset headers; the Gitaly keyset pager (`page_token`) is not used.
const ListTags = pageParams.extend({
  sort: p.oneOf("asc", "desc").optional(),
  order_by: p.oneOf("name", "updated", "version").optional(),
  search: p.string().optional(),
  page_token: p.string().optional(),
});

const CreateTag = z.object({
  tag_name: p.string(),
  ref: p.string(),
  message: p.string().optional(),
});

function presentTags(c: Ctx, project: ProjectWithAccess, rows: TagRow | TagRow[], status: 200 | 201 = 200) {
  return present(c, rows, tag, { projectId: project.id, projectPath: project.fullPath }, status);
}

/** Messages and tagger times of annotated tags (one statement for all of them). */
async function annotations(c: Ctx, repo: Repo, tagObjects: string[]): Promise<Map<string, { message: string; time: number | null }>> {
  const out = new Map<string, { message: string; time: number | null }>();
  if (tagObjects.length === 0) return out;
  for (const [oid, object] of await readObjects(c.var.db(), repo.poolId, tagObjects)) {
    if (object.type !== "tag") continue;
    const decoded = decodeTag(object.body);
    out.set(oid, { message: decoded.message, time: decoded.tagger?.time ?? null });
  }
  return out;
}

/** GET /projects/:id/repository/tags (lib/api/tags.rb, app/finders/tags_finder.rb) */
tagsRoutes.get("/projects/:id/repository/tags", { params: ListTags, response: [Tag] }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const params = await readParams(c, ListTags);
  const page = pageOf(params);
  const orderBy = params.order_by ?? "updated";
  const desc = (params.sort ?? "desc") === "desc";
  const repo = repoOf(project);
  const refs = await q.listTagRefs(c.var.db(), repo);
  // Annotated tags (the only ones with a peeled commit) are read for their tagger dates when sorting
  // by `updated` (git's creatordate), and for their messages on the page.
  const annotated = (list: q.TagRef[]) => list.filter((r) => r.peeled !== null).map((r) => r.target);
  let notes = orderBy === "updated" ? await annotations(c, repo, annotated(refs)) : new Map();
  // Gitaly's FindAllTags: `--sort=[-]refname | creatordate | version:refname`; equal keys fall back to
  // the name, ascending, as for-each-ref does.
  const created = (r: q.TagRef) => (r.peeled ? notes.get(r.target)?.time ?? null : null) ?? Math.floor((r.committedAt?.getTime() ?? 0) / 1000);
  const key = (a: q.TagRef, b: q.TagRef) =>
    orderBy === "name" ? compareRefNames(a.name, b.name) : orderBy === "version" ? versionCompare(a.name, b.name) : created(a) - created(b);
  refs.sort((a, b) => (desc ? -key(a, b) : key(a, b)) || compareRefNames(a.name, b.name));
  const found = searchRefs(refs, params.search);
  const onPage = found.slice(page.offset, page.offset + page.limit);
  if (orderBy !== "updated") notes = await annotations(c, repo, annotated(onPage));
  const commits = await readCommitRows(c.var.db(), repo.poolId, [...new Set(onPage.map((r) => r.peeled ?? r.target))]);
  const { protectedNames, releases } = await q.tagDecorations(c.var.db(), project.id, onPage.map((r) => r.name));
  const rows: TagRow[] = onPage.map((r) => ({
    name: r.name,
    message: r.peeled ? notes.get(r.target)?.message ?? "" : "",
    target: r.target,
    commit: commits.get(r.peeled ?? r.target) ?? null,
    protected: protectedNames.some((pattern) => refMatches(pattern, r.name)),
    release: releases.get(r.name) ?? null,
  }));
  paginate(c, page, found.length);
  return presentTags(c, project, rows);
});

/** GET /projects/:id/repository/tags/:tag_name (lib/api/tags.rb) */
tagsRoutes.get("/projects/:id/repository/tags/:tag_name", { response: Tag }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const repo = repoOf(project);
  const name = c.req.param("tag_name")!;
  const found = (await readRefsWithCommits(c.var.db(), repo, [`refs/tags/${name}`])).get(`refs/tags/${name}`);
  if (!found) throw notFound("Tag");
  const message = found.peeled ? (await annotations(c, repo, [found.target])).get(found.target)?.message ?? "" : "";
  const { protectedNames, releases } = await q.tagDecorations(c.var.db(), project.id, [name]);
  const isProtected = protectedNames.some((pattern) => refMatches(pattern, name));
  return presentTags(c, project, { name, message, target: found.target, commit: found.commit, protected: isProtected, release: releases.get(name) ?? null });
});

/** POST /projects/:id/repository/tags (lib/api/tags.rb, app/services/tags/create_service.rb) */
tagsRoutes.post("/projects/:id/repository/tags", { params: CreateTag, response: Tag }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const params = await readParams(c, CreateTag);
  authorize(c, "push_code", project);
  const actor = requireUser(c);
  const created = await s.createTagAt(c.var.db(), repoOf(project), actor.user, { name: params.tag_name, ref: params.ref, message: params.message, caller: callerOf(actor, project) });
  // Push mirrors follow every ref change (shared/remote_mirrors).
  c.executionCtx.waitUntil(mirrorsForPush(c.env, project.id));
  return presentTags(c, project, created, 201);
});

/** DELETE /projects/:id/repository/tags/:tag_name (lib/api/tags.rb, app/services/tags/destroy_service.rb) */
tagsRoutes.delete("/projects/:id/repository/tags/:tag_name", async (c) => {
  const project = await authorizedProject(c, "read_code");
  authorize(c, "push_code", project);
  const actor = requireUser(c);
  await s.deleteTag(c.var.db(), repoOf(project), { name: c.req.param("tag_name")!, userId: actor.user.id, caller: callerOf(actor, project), ifUnmodifiedSince: c.req.header("if-unmodified-since") });
  // Push mirrors follow every ref change (shared/remote_mirrors).
  c.executionCtx.waitUntil(mirrorsForPush(c.env, project.id));
  return c.body(null, 204);
});
