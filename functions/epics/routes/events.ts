import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { recordNotFound } from "../../kernel/errors";
import { authorizedGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { pathRowId, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { canReadEpic } from "../../shared/issuables/policy";
import { epicLabelEvent, epicStateEvent } from "../../entities/epics";
import { ResourceLabelEvent, ResourceStateEvent } from "../../entities/issues";
import * as q from "../queries";

/**
 * Resource events of epics (lib/api/resource_state_events.rb and resource_label_events.rb with EE's
 * Epic eventable; state events since GitLab 15.4): signed-in callers only (`authenticate!`); the epic is
 * named by its global id inside the group, as the notes API names it (`find_noteable`), and a missing or
 * unreadable epic is `404 Not found`, as is a missing event. The rows are those the epic's close,
 * reopen and label writes record (`queries.ts#writeEpicEffects`).
 */
export const epicEventRoutes = router();

const KINDS = [
  { path: "resource_state_events", kind: "state", entity: epicStateEvent, schema: ResourceStateEvent },
  { path: "resource_label_events", kind: "label", entity: epicLabelEvent, schema: ResourceLabelEvent },
] as const;

/** The readable epic of the path (`:epic_id` is the id, `id_field: 'ID'`). */
async function epicOf(c: Ctx): Promise<number> {
  const group = await authorizedGroup(c, null, { signedIn: true });
  const raw = c.req.param("epic_id") ?? "";
  const found = /^\d+$/.test(raw) ? await q.findEpicById(c.var.db(), group, Number(raw)) : null;
  if (!found || !canReadEpic(c.var.actor, group, found)) throw recordNotFound();
  return found.id;
}

for (const { path, kind, entity, schema } of KINDS) {
  const present_ = entity as (row: never, ctx: never) => unknown;

  /** GET /groups/:id/epics/:epic_id/resource_{state,label}_events */
  epicEventRoutes.get(`/groups/:id/epics/:epic_id/${path}`, { params: pageParams, response: [schema] }, async (c) => {
    requireUser(c);
    const params = await readParams(c, pageParams);
    const epicId = await epicOf(c);
    const page = pageOf(params);
    const list = await q.listEpicEvents(c.var.db(), kind, epicId, page);
    paginate(c, page, list.total);
    return present(c, list.rows as never[], present_);
  });

  /** GET /groups/:id/epics/:epic_id/resource_{state,label}_events/:event_id */
  epicEventRoutes.get(`/groups/:id/epics/:epic_id/${path}/:event_id`, { response: schema }, async (c) => {
    // `before { authenticate! }` covers the single event too.
    requireUser(c);
    const epicId = await epicOf(c);
    const eventId = c.req.param("event_id");
    if (pathRowId(eventId) === null) throw recordNotFound();
    const row = await q.findEpicEvent(c.var.db(), kind, epicId, Number(eventId));
    if (!row) throw recordNotFound();
    return present(c, row as never, present_);
  });
}
