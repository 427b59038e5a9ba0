import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { recordNotFound } from "../../kernel/errors";
import { findIssue, findProjectMergeRequest } from "../../shared/issuables/find";
import { authorizedProject } from "../../kernel/lookup";
import { pageOf, paginate } from "../../kernel/pagination";
import { pathRowId, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import {
  ResourceLabelEvent,
  resourceLabelEvent,
  ResourceMilestoneEvent,
  resourceMilestoneEvent,
  ResourceStateEvent,
  resourceStateEvent,
} from "../../entities/issues";
import { EventsList } from "../params";
import * as q from "../queries";

/**
 * Resource events of issues and merge requests (lib/api/resource_label_events.rb,
 * resource_state_events.rb, resource_milestone_events.rb): signed-in callers only; the eventable is
 * found by iid inside the project as `find_noteable` does, unreadable or missing (`404 Issue Not Found`,
 * `404 Merge Request Not Found`); a missing event is `404 Not found`. The epic variants are in `epics/routes/events.ts`.
 */
export const eventRoutes = router();

const KINDS = [
  { path: "resource_label_events", kind: "label", entity: resourceLabelEvent, schema: ResourceLabelEvent },
  { path: "resource_state_events", kind: "state", entity: resourceStateEvent, schema: ResourceStateEvent },
  { path: "resource_milestone_events", kind: "milestone", entity: resourceMilestoneEvent, schema: ResourceMilestoneEvent },
] as const;

const EVENTABLES = [
  { collection: "issues", type: "Issue", find: findIssue },
  { collection: "merge_requests", type: "MergeRequest", find: findProjectMergeRequest },
] as const;

for (const { collection, type, find } of EVENTABLES) {
  async function eventableOf(c: Ctx): Promise<q.Eventable> {
    const project = await authorizedProject(c, null, { signedIn: true });
    const found = await find(c, project, c.req.param("eventable_id")!);
    return { type, id: found.id };
  }

  for (const { path, kind, entity, schema } of KINDS) {
    const present_ = entity as (row: never, ctx: never) => unknown;

    /** GET /projects/:id/{issues,merge_requests}/:eventable_id/resource_{label,state,milestone}_events */
    eventRoutes.get(`/projects/:id/${collection}/:eventable_id/${path}`, { params: EventsList, response: [schema] }, async (c) => {
      requireUser(c);
      const params = await readParams(c, EventsList);
      const eventable = await eventableOf(c);
      const page = pageOf(params);
      const list = await q.listEvents(c.var.db(), kind, eventable, page);
      paginate(c, page, list.total);
      return present(c, list.rows as never[], present_);
    });

    /** GET /projects/:id/{issues,merge_requests}/:eventable_id/resource_{label,state,milestone}_events/:event_id */
    eventRoutes.get(`/projects/:id/${collection}/:eventable_id/${path}/:event_id`, { response: schema }, async (c) => {
      // `before { authenticate! }` covers the single event too.
      requireUser(c);
      const eventable = await eventableOf(c);
      const eventId = c.req.param("event_id");
      if (pathRowId(eventId) === null) throw recordNotFound();
      const row = await q.findEvent(c.var.db(), kind, eventable, Number(eventId));
      if (!row) throw recordNotFound();
      return present(c, row as never, present_);
    });
  }
}
