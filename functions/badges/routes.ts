import { z } from "zod";
import { authorize, authorizeGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, paramsError, recordNotFound, validation } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import type { Badge } from "./queries";
import { badge, basicBadgeDetails } from "./entities";
import * as q from "./queries";
import { badgeErrors, type PlaceholderSource } from "./rules";

/**
 * Badges of projects and groups (lib/api/badges.rb; spec 1: 4.11). Reads follow the source's
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
    const project = await findProject(c, c.req.param("id")!);
    if (admin) authorize(c, "admin_project", project);
    return { source: { kind, project }, placeholders: () => q.placeholdersOfProject(db, project) };
  }
  const group = await findGroup(c, c.req.param("id")!);
  if (admin) authorizeGroup(c, "admin_group", group);
  return { source: { kind, groupId: group.id }, placeholders: () => q.placeholdersOfGroup(db, group.id, c.var.actor) };
}

function badgeId(c: Ctx): number {
  const id = c.req.param("badge_id")!;
  if (!/^\d+$/.test(id) || Number(id) > 2147483647) throw paramsError("badge_id is invalid");
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
  badgesRoutes.get(base, async (c) => {
    const params = await readParams(c, ListBadges);
    const s = await findSource(c, kind, false);
    const page = pageOf(params);
    const list = await q.listBadges(c.var.db(), s.source, params.name, page);
    paginate(c, page, list.total);
    return present(c, list.rows, badge, { placeholders: await s.placeholders() });
  });

  /** GET /{projects,groups}/:id/badges/render (lib/api/badges.rb): the URLs rendered, nothing saved. */
  badgesRoutes.get(`${base}/render`, async (c) => {
    requireUser(c);
    const params = await readParams(c, RenderBadge);
    const s = await findSource(c, kind, true);
    const values = { name: null, linkUrl: params.link_url, imageUrl: params.image_url };
    const errors = badgeErrors(values);
    if (Object.keys(errors).length) throw validation(errors);
    return present(c, values, basicBadgeDetails, { placeholders: await s.placeholders() });
  });

  /** GET /{projects,groups}/:id/badges/:badge_id (lib/api/badges.rb) */
  badgesRoutes.get(`${base}/:badge_id`, async (c) => {
    const s = await findSource(c, kind, false);
    const found = await findBadge(c, s);
    return present(c, found, badge, { placeholders: await s.placeholders() });
  });

  /** POST /{projects,groups}/:id/badges (lib/api/badges.rb) */
  badgesRoutes.post(base, async (c) => {
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
  badgesRoutes.put(`${base}/:badge_id`, async (c) => {
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
