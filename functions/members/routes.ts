import * as z from "zod";
import { allowed, allowedOnGroup, authorize, authorizeGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { forbidden, paramsError, recordNotFound } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { p, rawParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { createResult, member, Member, MemberCreateResult } from "../entities/members";
import { ListAllMembers, ListMembers } from "./params";
import * as q from "./queries";
import { groupSource, projectSource, type MemberSource } from "./rules";
import * as services from "./services";

/**
 * Group and project members (lib/api/members.rb, lib/api/helpers/members_helpers.rb and their EE
 * prepends), registered once per source type as GitLab does. Every endpoint needs a signed-in caller
 * (`before { authenticate! }`), which runs before parameter validation.
 */
export const membersRoutes = router();

type SourceKind = { plural: "groups" | "projects"; find: (c: Ctx, id: string) => Promise<MemberSource> };

const SOURCES: SourceKind[] = [
  { plural: "groups", find: async (c, id) => groupSource(await findGroup(c, id)) },
  { plural: "projects", find: async (c, id) => projectSource(await findProject(c, id)) },
];

/** `read_group_member` / `read_project_member`. */
function authorizeRead(c: Ctx, source: MemberSource) {
  if (source.kind === "group") authorizeGroup(c, "read_group_member", source.group);
  else authorize(c, "read_project_member", source.project);
}

/** `admin_group_member` (owners) / `admin_project_member` (maintainers). */
function canAdminMembers(c: Ctx, source: MemberSource): boolean {
  return source.kind === "group"
    ? allowedOnGroup(c.var.actor, "admin_group_member", source.group)
    : allowed(c.var.actor, "admin_project_member", source.project);
}

/** Grape coerces `expires_at` as a DateTime (an empty string is nil); the column keeps its date. */
const expiresAtParam = z.preprocess((v) => (v === "" ? null : v), p.datetime().nullable()).optional();

async function expiresDate(c: Ctx, value: Date | null | undefined): Promise<string | null | undefined> {
  if (value === undefined || value === null) return value;
  const raw = (await rawParams(c)).expires_at;
  return typeof raw === "string" && /^\d{4}-\d{2}-\d{2}/.test(raw) ? raw.slice(0, 10) : value.toISOString().slice(0, 10);
}

const OneMember = z.object({ user_id: p.int() });

const AddMember = z.object({
  access_level: p.int(),
  user_id: p.string(),
  expires_at: expiresAtParam,
  invite_source: p.string().optional(),
  // Onboarding task issues for the invitee; accepted and not acted upon (no onboarding here).
  tasks_to_be_done: p.strings({ comma: true }).optional(),
  tasks_project_id: p.int().optional(),
});

const UpdateMember = z.object({ user_id: p.int(), access_level: p.int(), expires_at: expiresAtParam });

const RemoveMember = z.object({
  user_id: p.int(),
  skip_subresources: p.bool().optional(),
  // There are no issues or merge requests to unassign from in this service yet.
  unassign_issuables: p.bool().optional(),
});

for (const { plural, find } of SOURCES) {
  /** GET /:source/:id/members (lib/api/members.rb): direct members. */
  membersRoutes.get(`/${plural}/:id/members`, { params: ListMembers, response: [Member] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListMembers);
    const source = await find(c, c.req.param("id"));
    authorizeRead(c, source);
    const page = pageOf(params);
    const seatInfo = !!params.show_seat_info;
    const list = await q.listMembers(c.var.db(), q.scopeOf(source), { deep: false, actor: c.var.actor, filters: params, page, seatInfo });
    paginate(c, page, list.total);
    return present(c, list.rows, member, { showSeatInfo: seatInfo });
  });

  /** GET /:source/:id/members/all (lib/api/members.rb): direct and inherited, highest level per user. */
  membersRoutes.get(`/${plural}/:id/members/all`, { params: ListAllMembers, response: [Member] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListAllMembers);
    const source = await find(c, c.req.param("id"));
    authorizeRead(c, source);
    const page = pageOf(params);
    const seatInfo = !!params.show_seat_info;
    const list = await q.listMembers(c.var.db(), q.scopeOf(source), { deep: true, actor: c.var.actor, filters: params, page, seatInfo });
    paginate(c, page, list.total);
    return present(c, list.rows, member, { showSeatInfo: seatInfo });
  });

  /** GET /:source/:id/members/all/:user_id (lib/api/members.rb): a member, inherited ones included. */
  membersRoutes.get(`/${plural}/:id/members/all/:user_id`, { params: OneMember, response: Member }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneMember);
    const source = await find(c, c.req.param("id"));
    authorizeRead(c, source);
    const row = await q.findMember(c.var.db(), q.scopeOf(source), params.user_id, { deep: true, actor: c.var.actor });
    if (!row) throw recordNotFound(); // find_by!
    return present(c, row, member);
  });

  /** GET /:source/:id/members/:user_id (lib/api/members.rb): a direct member. */
  membersRoutes.get(`/${plural}/:id/members/:user_id`, { params: OneMember, response: Member }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneMember);
    const source = await find(c, c.req.param("id"));
    authorizeRead(c, source);
    const row = await q.findMember(c.var.db(), q.scopeOf(source), params.user_id, { deep: false, actor: c.var.actor });
    if (!row) throw recordNotFound();
    return present(c, row, member);
  });

  /** POST /:source/:id/members (lib/api/members.rb): one user, or comma-separated ids. */
  membersRoutes.post(`/${plural}/:id/members`, { params: AddMember, response: z.union([Member, MemberCreateResult]), errors: [409] }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, AddMember);
    const source = await find(c, c.req.param("id"));
    if (!canAdminMembers(c, source)) throw forbidden();
    const expiresAt = (await expiresDate(c, params.expires_at)) ?? null;
    const input = { accessLevel: params.access_level, expiresAt };
    const db = c.var.db();
    if (params.user_id.includes(",")) {
      // Members::CreateService's result is presented as is, with POST's 201 even on errors.
      const errors = await services.addManyMembers(db, source, q.scopeOf(source), actor, { ...input, userIds: params.user_id });
      return c.json(createResult(errors), 201);
    }
    // Differs from GitLab: a blank `user_id` makes GitLab answer 201 with `null` and add nobody.
    if (params.user_id.trim() === "") throw paramsError("user_id is missing");
    const row = await services.addOneMember(db, source, q.scopeOf(source), actor, { ...input, userId: params.user_id });
    return present(c, row, member, {}, 201);
  });

  /** PUT /:source/:id/members/:user_id (lib/api/members.rb) */
  membersRoutes.put(`/${plural}/:id/members/:user_id`, { params: UpdateMember, response: Member }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, UpdateMember);
    const source = await find(c, c.req.param("id"));
    if (!canAdminMembers(c, source)) throw forbidden(); // authorize_admin_source! comes before the lookup
    const expiresAt = await expiresDate(c, params.expires_at);
    const row = await services.updateMember(c.var.db(), source, q.scopeOf(source), actor, params.user_id, {
      accessLevel: params.access_level,
      expiresAt,
    });
    return present(c, row, member);
  });

  /** DELETE /:source/:id/members/:user_id (lib/api/members.rb): 204; members may leave. */
  membersRoutes.delete(`/${plural}/:id/members/:user_id`, { params: RemoveMember }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, RemoveMember);
    const source = await find(c, c.req.param("id"));
    await services.removeMember(c.var.db(), source, q.scopeOf(source), actor, {
      userId: params.user_id,
      canAdminMembers: canAdminMembers(c, source),
      skipSubresources: !!params.skip_subresources,
      ifUnmodifiedSince: c.req.header("if-unmodified-since"),
    });
    return c.body(null, 204);
  });
}
