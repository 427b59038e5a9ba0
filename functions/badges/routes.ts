import { Hono } from "hono";
import * as z from "zod";
import { canReadProject } from "../kernel/abilities";
import { authenticate, requireUser } from "../kernel/auth";
import type { AppEnv, Ctx } from "../kernel/env";
import { checkUnmodifiedSince, paramsError, recordNotFound, validation } from "../kernel/errors";
import { loadProject, authorizedProject, authorizedGroup } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import type { Badge } from "./queries";
import { badge, BadgeEntity, basicBadgeDetails, BasicBadgeDetails, type PlaceholderSource } from "../entities/badges";
import * as q from "./queries";
import { badgeErrors } from "./rules";
import { coverageBadge, pipelineBadge } from "./svg";

/**
 * Badges of projects and groups (lib/api/badges.rb). Reads follow the source's
 * visibility; writes and `render` need `admin_project` (Maintainer) or `admin_group` (Owner).
 * A project's list holds its own badges and those of its ancestor groups (`kind`).
 * Not built: the pipeline and coverage badge images (`/<full_path>/badges/<ref>/pipeline.svg`), which
 * need CI.
 */
export const badgesRoutes = router();

const ListBadges = pageParams.extend({ name: p.string().optional() });
const RenderBadge = z.object({ link_url: p.string(), image_url: p.string() });
const CreateBadge = z.object({ link_url: p.string(), image_url: p.string(), name: p.string().optional() });
const UpdateBadge = z.object({ link_url: p.string().optional(), image_url: p.string().optional(), name: p.string().optional() });

type Source = { source: q.BadgeSource; placeholders: () => Promise<PlaceholderSource | null> };

/** `find_source` and, for writes, `authorize_admin_source!`. */
async function findSource(c: Ctx, kind: "project" | "group", admin: boolean): Promise<Source> {
  const db = c.var.db();
  if (kind === "project") {
    const project = await authorizedProject(c, admin ? "admin_project" : null);
    return { source: { kind, project }, placeholders: () => q.placeholdersOfProject(db, project) };
  }
  const group = await authorizedGroup(c, admin ? "admin_group" : null);
  return { source: { kind, groupId: group.id }, placeholders: () => q.placeholdersOfGroup(db, group.id, c.var.actor) };
}

function badgeId(c: Ctx): number {
  const id = c.req.param("badge_id")!;
  if (pathRowId(id) === null) throw paramsError("badge_id is invalid");
  return Number(id);
}

async function findBadge(c: Ctx, s: Source, ownOnly = false): Promise<Badge> {
  const found = await q.findBadge(c.var.db(), s.source, badgeId(c), ownOnly);
  if (!found) throw recordNotFound();
  return found;
}

for (const kind of ["project", "group"] as const) {
  const base = `/${kind}s/:id/badges`;

  /** GET /{projects,groups}/:id/badges (lib/api/badges.rb) */
  badgesRoutes.get(base, { params: ListBadges, response: [BadgeEntity] }, async (c) => {
    const params = await readParams(c, ListBadges);
    const s = await findSource(c, kind, false);
    const page = pageOf(params);
    const list = await q.listBadges(c.var.db(), s.source, params.name, page);
    paginate(c, page, list.total);
    return present(c, list.rows, badge, { placeholders: await s.placeholders() });
  });

  /** GET /{projects,groups}/:id/badges/render (lib/api/badges.rb): the URLs rendered, nothing saved. */
  badgesRoutes.get(`${base}/render`, { params: RenderBadge, response: BasicBadgeDetails }, async (c) => {
    requireUser(c);
    const params = await readParams(c, RenderBadge);
    const s = await findSource(c, kind, true);
    const values = { name: null, linkUrl: params.link_url, imageUrl: params.image_url };
    const errors = badgeErrors(values);
    if (Object.keys(errors).length) throw validation(errors);
    return present(c, values, basicBadgeDetails, { placeholders: await s.placeholders() });
  });

  /** GET /{projects,groups}/:id/badges/:badge_id (lib/api/badges.rb) */
  badgesRoutes.get(`${base}/:badge_id`, { response: BadgeEntity }, async (c) => {
    const s = await findSource(c, kind, false);
    const found = await findBadge(c, s);
    return present(c, found, badge, { placeholders: await s.placeholders() });
  });

  /** POST /{projects,groups}/:id/badges (lib/api/badges.rb) */
  badgesRoutes.post(base, { params: CreateBadge, response: BadgeEntity }, async (c) => {
    const params = await readParams(c, CreateBadge);
    const s = await findSource(c, kind, true);
    const values = { name: params.name ?? null, linkUrl: params.link_url, imageUrl: params.image_url };
    const errors = badgeErrors(values);
    if (Object.keys(errors).length) throw validation(errors);
    const created = await q.insertBadge(c.var.db(), s.source, values);
    return present(c, created, badge, { placeholders: await s.placeholders() }, 201);
  });

  /**
   * PUT /{projects,groups}/:id/badges/:badge_id (lib/api/badges.rb).
   * Differs from GitLab: through a project only its own badges change; a group badge is 404 there.
   */
  badgesRoutes.put(`${base}/:badge_id`, { params: UpdateBadge, response: BadgeEntity }, async (c) => {
    const params = await readParams(c, UpdateBadge);
    const s = await findSource(c, kind, true);
    const found = await findBadge(c, s, true);
    const values = { name: params.name, linkUrl: params.link_url, imageUrl: params.image_url };
    const errors = badgeErrors(values);
    if (Object.keys(errors).length) throw validation(errors);
    const updated = Object.values(values).some((v) => v !== undefined) ? await q.updateBadge(c.var.db(), found.id, values) : found;
    return present(c, updated, badge, { placeholders: await s.placeholders() });
  });

  /** DELETE /{projects,groups}/:id/badges/:badge_id (lib/api/badges.rb): project badges only through a project. */
  badgesRoutes.delete(`${base}/:badge_id`, async (c) => {
    const s = await findSource(c, kind, true);
    const found = await findBadge(c, s, true);
    checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
    await q.deleteBadge(c.var.db(), found.id);
    return c.body(null, 204);
  });
}

/**
 * Badge images outside /api/v4 (Projects::BadgesController): `GET /<full_path>/badges/<ref>/pipeline.svg`
 * (`ignore_skipped`) and `…/coverage.svg` (`job`), both with `key_text` and `key_width`. Readers of
 * the project only (`authorize_read_project!`): anonymous callers for public projects, else a token
 * as `private_token` or `PRIVATE-TOKEN`; everyone else gets the unknown route's 404.
 * Differs from GitLab: GitLab sends signed-out visitors of a private project to the sign-in page.
 */
export const badgeImageRoutes = new Hono<AppEnv>();
const BADGE_PATH = /^\/(.+?)\/badges\/(.+)\/(pipeline|coverage)\.svg$/;

badgeImageRoutes.use("/:path{.+\\.svg}", authenticate);
badgeImageRoutes.get("/:path{.+\\.svg}", async (c, next) => {
  const match = BADGE_PATH.exec(decodeURIComponent(new URL(c.req.url).pathname));
  if (!match) return next();
  const [, fullPath, ref, kind] = match;
  const project = fullPath.includes("/") ? await loadProject(c, fullPath) : null;
  if (!project || !canReadProject(c.var.actor, project)) return c.notFound();
  const opts = { keyText: c.req.query("key_text"), keyWidth: c.req.query("key_width") };
  const svg =
    kind === "pipeline"
      ? pipelineBadge(await q.latestPipelineStatus(c.var.db(), project.id, ref, c.req.query("ignore_skipped") === "true"), opts)
      : coverageBadge(await q.latestCoverage(c.var.db(), project.id, ref, c.req.query("job") ?? null), opts);
  // `expires_now`: badges must not be cached by browsers or proxies.
  return c.body(svg, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "no-cache" });
});
