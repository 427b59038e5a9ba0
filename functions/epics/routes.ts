import { z } from "zod";
import { allowedOnGroup, authorizeGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { forbidden, validation } from "../kernel/errors";
import { findGroup } from "../kernel/lookup";
import { canReadEpic } from "../shared/issuables/policy";
import { noteUser } from "../shared/issuables/noteables";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { epic } from "./entities";
import * as q from "./queries";

/**
 * Group epics, the part notes need (ee/lib/api/epics.rb): list, get, create. Reads are open to
 * anonymous callers on public groups (`authenticate_non_get!`); the licence always has epics.
 * Not built: update, delete, label filters and label assignment (epics carry no labels here, and the
 * `labels` parameters are ignored), `my_reaction_emoji`, dates on create.
 */
export const epicsRoutes = router();

const ListEpics = z.object({
  order_by: p.oneOf("created_at", "updated_at").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  search: p.string().optional(),
  state: p.oneOf("opened", "closed", "all").optional(),
  author_id: p.int().optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  include_ancestor_groups: p.bool().optional(),
  include_descendant_groups: p.bool().optional(),
  confidential: p.bool().optional(),
  ...pageParams.shape,
});
const OneEpic = z.object({ epic_iid: p.int() });
const CreateEpic = z.object({
  title: p.string(),
  description: p.string().optional(),
  confidential: p.bool().optional(),
  created_at: p.datetime().optional(),
  labels: p.strings({ comma: true }).optional(),
});

for (const prefix of ["/groups/:id/epics", "/groups/:id/-/epics"]) {
  /** GET /groups/:id/epics (ee/lib/api/epics.rb) */
  epicsRoutes.get(prefix, async (c) => {
    const params = await readParamsWithPath(c, ListEpics);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const page = pageOf(params);
    const filters = {
      orderBy: params.order_by ?? "created_at",
      sort: params.sort ?? "desc",
      state: params.state ?? "all",
      search: params.search,
      authorId: params.author_id,
      confidential: params.confidential,
      createdAfter: params.created_after,
      createdBefore: params.created_before,
      updatedAfter: params.updated_after,
      updatedBefore: params.updated_before,
      includeAncestors: params.include_ancestor_groups ?? false,
      includeDescendants: params.include_descendant_groups ?? true,
    } as const;
    const list = await q.listEpics(c.var.db(), group, c.var.actor, filters, page);
    paginate(c, page, list.total);
    return present(c, list.rows, epic, { group });
  });

  /**
   * GET /groups/:id/epics/:epic_iid (ee/lib/api/epics.rb). `authorize!(:read_epic, epic)` with a nil
   * epic is forbidden: GitLab answers 403, not 404, to a missing or unreadable epic.
   */
  epicsRoutes.get(`${prefix}/:epic_iid`, async (c) => {
    const params = await readParamsWithPath(c, OneEpic);
    const group = await findGroup(c, c.req.param("id") ?? "");
    const found = await q.findEpic(c.var.db(), group, params.epic_iid);
    if (!found || !canReadEpic(c.var.actor, group, found)) throw forbidden();
    return present(c, found, epic, { group });
  });

  /** POST /groups/:id/epics (ee/lib/api/epics.rb, Epics::CreateService) */
  epicsRoutes.post(prefix, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, CreateEpic);
    const group = await findGroup(c, c.req.param("id") ?? "");
    authorizeGroup(c, "admin_epic", group);
    const title = params.title.trim();
    if (title === "") throw validation({ title: ["can't be blank"] });
    if ([...title].length > 255) throw validation({ title: ["is too long (maximum is 255 characters)"] });
    // Setting created_at is allowed only for admins and owners (`set_epic_created_at`).
    const createdAt = params.created_at && allowedOnGroup(actor, "set_epic_created_at", group) ? params.created_at : undefined;
    const created = await q.insertEpic(c.var.db(), {
      groupId: group.id,
      authorId: actor.user.id,
      title,
      description: params.description ?? null,
      confidential: params.confidential ?? false,
      ...(createdAt ? { createdAt, updatedAt: createdAt } : {}),
    });
    const row = Object.assign(created, {
      author: noteUser(actor.user),
      groupFullPath: group.fullPath,
      parentIid: null,
      parentGroupId: null,
      upvotes: 0,
      downvotes: 0,
    });
    return present(c, row, epic, { group }, 201);
  });
}
