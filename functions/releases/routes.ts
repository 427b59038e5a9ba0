import * as z from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { forbidden, notFound, paramsError, recordNotFound, validation } from "../kernel/errors";
import { authorizedGroup, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { release, releaseLink, Release, ReleaseLink, type ReleaseContext, type ReleaseRow } from "../entities/releases";
import { readCommitRows, repoOf } from "../shared/git";
import { renderMarkdownMany } from "../shared/markdown/render";
import { callerOf } from "../shared/protected_branches/access";
import { canCreateTag, listProtectedTags } from "../shared/protected_tags";
import * as q from "./queries";
import * as s from "./services";

/**
 * Releases and their asset links (lib/api/releases.rb, lib/api/release/links.rb, GitLab 15.4). Readers
 * of the project (`read_release`, guests included) list releases; one release, its downloads and the
 * latest permalink also need `download_code`. Developers create, update and delete, except on a
 * protected tag they may not create (ReleasePolicy). Not built: the web pages the entity links to
 * (`_links`, evidence JSON at `evidences[].filepath`) and `POST …/releases/:tag_name/evidence`.
 */
export const releasesRoutes = router();

const ListReleases = pageParams.extend({
  order_by: p.oneOf("released_at", "created_at").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  include_html_description: p.bool().optional(),
  updated_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
});
const ShowRelease = z.object({ include_html_description: p.bool().optional() });
const CreateRelease = z.object({
  tag_name: p.string(),
  tag_message: p.string().optional(),
  name: p.string().optional(),
  description: p.string().optional(),
  ref: p.string().optional(),
  assets: p.hash().optional(),
  milestones: p.strings({ comma: true }).optional(),
  released_at: p.datetime().optional(),
});
const UpdateRelease = z.object({
  name: p.string().optional(),
  description: p.string().optional(),
  released_at: p.datetime().optional(),
  milestones: p.strings({ comma: true }).optional(),
});
const GroupReleases = pageParams.extend({ sort: p.oneOf("asc", "desc").optional() });

async function releaseContext(c: Ctx, project: ProjectWithAccess, rows: ReleaseRow[], includeHtml: boolean): Promise<ReleaseContext & { baseUrl: string }> {
  const actor = c.var.actor;
  if (includeHtml) {
    const html = await renderMarkdownMany(c, rows.map((r) => r.description), { project });
    rows.forEach((r, i) => (r.descriptionHtml = html[i]));
  }
  return {
    baseUrl: baseUrl(c),
    actor,
    now: new Date(),
    downloadCode: allowed(actor, "download_code", project),
    readMilestones: allowed(actor, "read_milestone", project),
    canUpdate: allowed(actor, "update_release", project),
    includeHtml,
  };
}

/** Commits of the releases (one statement), shown to whoever may download code. */
async function withCommits(c: Ctx, project: ProjectWithAccess, rows: ReleaseRow[]): Promise<void> {
  const commits = await readCommitRows(c.var.db(), repoOf(project).poolId, [...new Set(rows.flatMap((r) => (r.sha ? [r.sha] : [])))]);
  for (const r of rows) r.commit = r.sha ? (commits.get(r.sha) ?? null) : null;
}

/** The release named by `:tag_name`, or null. */
function findRelease(c: Ctx, project: ProjectWithAccess) {
  return q.findRelease(c.var.db(), project.id, c.req.param("tag_name")!);
}

/**
 * ReleasePolicy: `update_release`/`destroy_release` on a missing release is GitLab's `authorize!` on nil,
 * 403; on a protected tag the caller may not create, 403 too.
 */
async function authorizeOnRelease(c: Ctx, project: ProjectWithAccess, ability: "update_release" | "destroy_release" | "create_release", found: ReleaseRow | null): Promise<ReleaseRow> {
  authorize(c, ability, project);
  if (!found) throw forbidden();
  if (!canCreateTag(await listProtectedTags(c.var.db(), project.id), found.tag, callerOf(c.var.actor, project))) throw forbidden();
  return found;
}

/** GET /projects/:id/releases */
releasesRoutes.get("/projects/:id/releases", { params: ListReleases, response: [Release] }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, ListReleases);
  const page = pageOf(params);
  const order = { orderBy: params.order_by ?? "released_at", sort: params.sort ?? "desc" } as const;
  const { rows, total } = await q.listReleases(c.var.db(), project.id, order, { updatedBefore: params.updated_before, updatedAfter: params.updated_after }, page);
  const ctx = await releaseContext(c, project, rows, params.include_html_description === true);
  if (ctx.downloadCode) await withCommits(c, project, rows);
  paginate(c, page, total);
  return present(c, rows, release, ctx);
});

/**
 * GET /projects/:id/releases/permalink/latest[/*suffix]: a redirect to the newest release (by
 * `released_at`) with the suffix and the query string but `order_by`. Differs from Edgeforge's rule of
 * never redirecting, as GitLab does here.
 */
releasesRoutes.get("/projects/:id/releases/permalink/latest/*", { description: "Answers 302 Found, its Location the release (or the link's URL)." }, async (c) => latest(c));
releasesRoutes.get("/projects/:id/releases/permalink/latest", { description: "Answers 302 Found, its Location the release (or the link's URL)." }, async (c) => latest(c));
async function latest(c: Ctx) {
  const project = await authorizedProject(c, "read_release");
  authorize(c, "download_code", project);
  const found = await q.latestRelease(c.var.db(), project.id);
  if (!found) throw notFound();
  const url = new URL(c.req.url);
  const suffix = url.pathname.split("/releases/permalink/latest")[1]?.replace(/^\/+/, "") ?? "";
  url.searchParams.delete("order_by");
  const query = url.searchParams.toString();
  const location = `${baseUrl(c)}/api/v4/projects/${project.id}/releases/${encodeURIComponent(found.tag)}${suffix ? `/${suffix}` : ""}${query ? `?${query}` : ""}`;
  return c.redirect(location, 302);
}

/** GET /projects/:id/releases/:tag_name */
releasesRoutes.get("/projects/:id/releases/:tag_name", { params: ShowRelease, response: Release }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, ShowRelease);
  authorize(c, "download_code", project);
  const found = await findRelease(c, project);
  if (!found) throw notFound();
  const ctx = await releaseContext(c, project, [found], params.include_html_description === true);
  await withCommits(c, project, [found]);
  return present(c, found, release, ctx);
});

/** GET /projects/:id/releases/:tag_name/downloads/*direct_asset_path: a redirect to the link's URL. */
releasesRoutes.get("/projects/:id/releases/:tag_name/downloads/*", { description: "Answers 302 Found, its Location the release (or the link's URL)." }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  authorize(c, "download_code", project);
  const found = await findRelease(c, project);
  if (!found) throw notFound();
  const filepath = `/${decodeURIComponent(new URL(c.req.url).pathname.split("/downloads/").slice(1).join("/downloads/"))}`;
  const link = found.links.find((l) => l.filepath === filepath);
  if (!link) throw recordNotFound(); // find_by_filepath!
  return c.redirect(link.url, 302);
});

/** Grape's nested `assets[links]` parameters (`requires :name, :url`), in the order Grape reports them. */
function readLinks(assets: Record<string, unknown> | undefined): s.LinkInput[] {
  const raw = assets?.links;
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : raw && typeof raw === "object" ? Object.values(raw) : null;
  if (!list || list.some((l) => !l || typeof l !== "object" || Array.isArray(l))) throw paramsError("assets[links] is invalid");
  const missing: string[] = [];
  const links = list.map((l: Record<string, unknown>, i) => {
    for (const key of ["name", "url"]) if (typeof l[key] !== "string") missing.push(`assets[links][${i}][${key}] is missing`);
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    return { name: String(l.name ?? ""), url: String(l.url ?? ""), filepath: str(l.filepath), direct_asset_path: str(l.direct_asset_path), link_type: str(l.link_type) };
  });
  if (missing.length) throw paramsError(missing.join(", "));
  return links;
}

/** POST /projects/:id/releases (Releases::CreateService) */
releasesRoutes.post("/projects/:id/releases", { params: CreateRelease, response: Release, errors: [403, 409, 422] }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, CreateRelease);
  authorize(c, "create_release", project);
  const actor = requireUser(c);
  const links = readLinks(params.assets);
  const row = await s.createRelease(c.var.db(), c.env, baseUrl(c), repoOf(project), project, { user: actor.user, caller: callerOf(actor, project) }, {
    tag: params.tag_name,
    tagMessage: params.tag_message,
    name: params.name,
    description: params.description,
    ref: params.ref,
    releasedAt: params.released_at,
    milestones: params.milestones,
    links,
  });
  await withCommits(c, project, [row]);
  return present(c, row, release, await releaseContext(c, project, [row], false), 201);
});

/** PUT /projects/:id/releases/:tag_name (Releases::UpdateService) */
releasesRoutes.put("/projects/:id/releases/:tag_name", { params: UpdateRelease, response: Release }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, UpdateRelease);
  const found = await authorizeOnRelease(c, project, "update_release", await findRelease(c, project));
  const row = await s.updateRelease(c.var.db(), c.env, baseUrl(c), project, found, {
    name: params.name,
    description: params.description,
    releasedAt: params.released_at,
    milestones: params.milestones,
  });
  await withCommits(c, project, [row]);
  return present(c, row, release, await releaseContext(c, project, [row], false));
});

/** DELETE /projects/:id/releases/:tag_name (Releases::DestroyService): 200 with the release; the tag stays. */
releasesRoutes.delete("/projects/:id/releases/:tag_name", { response: Release, status: 200 }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const found = await authorizeOnRelease(c, project, "destroy_release", await findRelease(c, project));
  await s.destroyRelease(c.var.db(), c.env, baseUrl(c), project, found);
  await withCommits(c, project, [found]);
  return present(c, found, release, await releaseContext(c, project, [found], false));
});

/** GET /groups/:id/releases (Releases::GroupReleasesFinder): releases of the group's and subgroups' projects the caller reads. */
releasesRoutes.get("/groups/:id/releases", { params: GroupReleases, response: [Release] }, async (c) => {
  const group = await authorizedGroup(c, "read_release");
  const params = await readParams(c, GroupReleases);
  const page = pageOf(params);
  const { rows, total } = await q.listGroupReleases(c.var.db(), c.var.actor, group.id, params.sort ?? "desc", page);
  paginate(c, page, total);
  const ctx = { baseUrl: baseUrl(c), actor: c.var.actor, now: new Date(), readMilestones: true, canUpdate: false, includeHtml: false };
  return c.json(rows.map((r) => release(r, { ...ctx, downloadCode: r.downloadCode === true })));
});

// Asset links (lib/api/release/links.rb).

const linkPath = "/projects/:id/releases/:tag_name/assets/links";
const CreateLink = z.object({
  name: p.string(),
  url: p.string(),
  filepath: p.string().optional(),
  direct_asset_path: p.string().optional(),
  link_type: p.oneOf("other", "runbook", "image", "package").optional(),
});
const UpdateLink = z.object({
  name: p.string().optional(),
  url: p.string().optional(),
  filepath: p.string().optional(),
  direct_asset_path: p.string().optional(),
  link_type: p.oneOf("other", "runbook", "image", "package").optional(),
});

/** The release of a links route (`not_found!` unless release) and its link `:link_id` (`find`: 404 Not found). */
async function releaseOfLinks(c: Ctx, project: ProjectWithAccess): Promise<ReleaseRow> {
  const found = await findRelease(c, project);
  if (!found) throw notFound();
  return found;
}
function releaseLinkOf(found: ReleaseRow, c: Ctx) {
  const link = found.links.find((l) => String(l.id) === c.req.param("link_id"));
  if (!link) throw recordNotFound();
  return link;
}
function presentLink(c: Ctx, found: ReleaseRow, link: ReleaseRow["links"][number], status: 200 | 201 = 200) {
  return present(c, link, releaseLink, { release: found }, status);
}

/** GET /projects/:id/releases/:tag_name/assets/links */
releasesRoutes.get(linkPath, { params: pageParams, response: [ReleaseLink] }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const page = pageOf(await readParams(c, pageParams));
  const found = await releaseOfLinks(c, project);
  const links = [...found.links].sort((a, b) => b.id - a.id);
  paginate(c, page, links.length);
  return present(c, links.slice(page.offset, page.offset + page.limit), releaseLink, { release: found });
});

/** POST /projects/:id/releases/:tag_name/assets/links */
releasesRoutes.post(linkPath, { params: CreateLink, response: ReleaseLink }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, CreateLink);
  const found = await authorizeOnRelease(c, project, "create_release", await releaseOfLinks(c, project));
  const errors = s.linkErrors(params) ?? {};
  if (found.links.some((l) => l.name === params.name)) errors.name = [...(errors.name ?? []), "has already been taken"];
  if (found.links.some((l) => l.url === params.url)) errors.url = [...(errors.url ?? []), "has already been taken"];
  if (Object.keys(errors).length) throw validation(errors);
  const id = await q.insertLink(c.var.db(), found.id, s.newLink(params));
  if (id === null) throw validation({ name: ["has already been taken"] });
  const updated = (await findRelease(c, project))!;
  return presentLink(c, updated, updated.links.find((l) => l.id === id)!, 201);
});

/** GET /projects/:id/releases/:tag_name/assets/links/:link_id */
releasesRoutes.get(`${linkPath}/:link_id`, { response: ReleaseLink }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const found = await releaseOfLinks(c, project);
  return presentLink(c, found, releaseLinkOf(found, c));
});

/** PUT /projects/:id/releases/:tag_name/assets/links/:link_id (`at_least_one_of :name, :url`, as 15.4) */
releasesRoutes.put(`${linkPath}/:link_id`, { params: UpdateLink, response: ReleaseLink }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const params = await readParams(c, UpdateLink);
  const found = await authorizeOnRelease(c, project, "update_release", await releaseOfLinks(c, project));
  const link = releaseLinkOf(found, c);
  if (params.name === undefined && params.url === undefined) throw paramsError("name, url are missing, at least one parameter must be provided");
  const errors = s.linkErrors(params);
  if (errors) throw validation(errors);
  const fields = s.newLink({ name: params.name ?? link.name, url: params.url ?? link.url, filepath: params.filepath, direct_asset_path: params.direct_asset_path, link_type: params.link_type });
  const changes = {
    ...(params.name !== undefined ? { name: fields.name } : {}),
    ...(params.url !== undefined ? { url: fields.url } : {}),
    ...(params.filepath !== undefined || params.direct_asset_path !== undefined ? { filepath: fields.filepath } : {}),
    ...(params.link_type !== undefined ? { linkType: fields.linkType } : {}),
  };
  if (!(await q.updateLink(c.var.db(), found.id, link.id, changes))) throw validation({ name: ["has already been taken"] });
  const updated = (await findRelease(c, project))!;
  return presentLink(c, updated, releaseLinkOf(updated, c));
});

/** DELETE /projects/:id/releases/:tag_name/assets/links/:link_id: 200 with the link. */
releasesRoutes.delete(`${linkPath}/:link_id`, { response: ReleaseLink, status: 200 }, async (c) => {
  const project = await authorizedProject(c, "read_release");
  const found = await authorizeOnRelease(c, project, "destroy_release", await releaseOfLinks(c, project));
  const link = releaseLinkOf(found, c);
  if (!(await q.deleteLink(c.var.db(), found.id, link.id))) throw recordNotFound();
  return presentLink(c, found, link);
});

