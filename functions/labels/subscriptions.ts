import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { setSubscription } from "../shared/issuables/subscriptions";
import { groupLabel, projectLabel, ProjectLabel, GroupLabel } from "../entities/labels";
import * as q from "./queries";
import { labelDescriptionsHtml } from "../shared/markdown/label_descriptions";

/**
 * POST /projects/:id/labels/:subscribable_id/subscribe|unsubscribe and
 * POST /groups/:id/labels/:subscribable_id/subscribe|unsubscribe (lib/api/subscriptions.rb with
 * Entities::ProjectLabel / Entities::GroupLabel): `find_label(parent, id)` by id or title, ancestor
 * group labels included; `304 Not Modified` when the caller already is (or is not) subscribed.
 * A project label's subscription is at the project; a group's at no project (`parent` is nil for
 * groups in lib/api/subscriptions.rb). The one writer is `shared/issuables/subscriptions.ts`.
 */
export const labelSubscriptionRoutes = router();

/**
 * `find_label(user_group, id)` passes `include_ancestor_groups: true` only, so LabelsFinder's
 * `only_group_labels` is off: labels of the group's projects the caller may read are found too.
 */
const GROUP_SCOPE: q.GroupLabelScope = { includeAncestorGroups: true, includeDescendantGroups: false, onlyGroupLabels: false };

async function toggle(c: Ctx, parent: "project" | "group", subscribed: boolean) {
  const actor = requireUser(c);
  const id = c.req.param("id") ?? "";
  const db = c.var.db();
  const owner: q.LabelOwner =
    parent === "project"
      ? { kind: "project", project: await findProject(c, id), includeAncestorGroups: true }
      : { kind: "group", group: await findGroup(c, id), scope: GROUP_SCOPE };
  const label = await q.findLabel(db, owner, c.req.param("subscribable_id") ?? "", actor);
  if (!label) throw notFound("Label");
  if (label.subscribedHere === subscribed) return c.body(null, 304);
  const projectId = owner.kind === "project" ? owner.project.id : null;
  await setSubscription(db, { type: "Label", subscribableId: label.id, userId: actor.user.id, projectId, subscribed });
  // Subscribable#subscribe/unsubscribe set the other levels to unsubscribed: the entity shows `subscribed`.
  const row = { ...label, counts: null, subscribed };
  const html = await labelDescriptionsHtml(c, [row], owner.kind === "project" ? { project: owner.project } : { group: owner.group });
  return owner.kind === "project" ? present(c, row, projectLabel, { projectId: owner.project.id, ...html }, 201) : present(c, row, groupLabel, html, 201);
}

/** POST /projects/:id/labels/:subscribable_id/subscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/projects/:id/labels/:subscribable_id/subscribe", { response: ProjectLabel, errors: [304] }, (c) => toggle(c, "project", true));

/** POST /projects/:id/labels/:subscribable_id/unsubscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/projects/:id/labels/:subscribable_id/unsubscribe", { response: ProjectLabel, errors: [304] }, (c) => toggle(c, "project", false));

/** POST /groups/:id/labels/:subscribable_id/subscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/groups/:id/labels/:subscribable_id/subscribe", { response: GroupLabel, errors: [304] }, (c) => toggle(c, "group", true));

/** POST /groups/:id/labels/:subscribable_id/unsubscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/groups/:id/labels/:subscribable_id/unsubscribe", { response: GroupLabel, errors: [304] }, (c) => toggle(c, "group", false));
