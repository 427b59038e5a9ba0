import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { findProject, findUserByIdOrUsername } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { event, Event } from "../entities/events";
import { ListEvents, ListOwnEvents, type ListParams } from "./params";
import * as q from "./queries";

/**
 * Contribution events (lib/api/events.rb, app/finders/events_finder.rb, doc/api/events.md). The rows
 * are written by database triggers only (migration `events_triggers`), never by a domain.
 */
export const eventsRoutes = router();

async function listAndPresent(c: Ctx, source: q.EventSource, params: ListParams) {
  const page = pageOf(params);
  const { rows, total } = await q.listEvents(c.var.db(), c.var.actor, source, params, page);
  paginate(c, page, total);
  return present(c, rows, event);
}

/** GET /events: the caller's own events, or with `scope=all` those of every project they are authorized on. */
eventsRoutes.get("/events", { params: ListOwnEvents, response: [Event] }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, ListOwnEvents);
  const source: q.EventSource =
    params.scope === "all" ? { kind: "authorized_projects", userId: actor.user.id } : { kind: "author", userId: actor.user.id };
  return listAndPresent(c, source, params);
});

/**
 * GET /users/:id/events: the user's events in projects the caller may read; nothing when the caller may
 * not read the user's profile (EventsFinder#cannot_access_private_profile?).
 * `:id` is the id or the username (`requires :id, type: String`, `find_user`): R3's digits-only rule is
 * lib/api/users.rb's, not lib/api/events.rb's.
 */
eventsRoutes.get("/users/:id/events", { params: ListEvents, response: [Event] }, async (c) => {
  const params = await readParams(c, ListEvents);
  const user = await findUserByIdOrUsername(c, c.req.param("id")!);
  const actor = c.var.actor;
  if (user.privateProfile && !actor?.isAdmin && actor?.user.id !== user.id) {
    const page = pageOf(params);
    paginate(c, page, 0);
    return present(c, [], event);
  }
  return listAndPresent(c, { kind: "author", userId: user.id }, params);
});

/** GET /projects/:id/events: the project's events the caller may see. */
eventsRoutes.get("/projects/:id/events", { params: ListEvents, response: [Event] }, async (c) => {
  const params = await readParams(c, ListEvents);
  const project = await findProject(c, c.req.param("id")!);
  return listAndPresent(c, { kind: "project", projectId: project.id }, params);
});
