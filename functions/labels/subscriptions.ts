import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { setSubscription } from "../shared/issuables/subscriptions";
import { projectLabel } from "./entities";
import * as q from "./queries";

/**
 * POST /projects/:id/labels/:subscribable_id/subscribe and …/unsubscribe (lib/api/subscriptions.rb with
 * Entities::ProjectLabel): `find_label(user_project, id)` by id or title, ancestor group labels
 * included; `304 Not Modified` when the caller already is (or is not) subscribed at this project.
 * Group labels (`/groups/:id/labels/…`) are not built, so neither are their subscriptions.
 */
export const labelSubscriptionRoutes = router();

async function toggle(c: Ctx, subscribed: boolean) {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id") ?? "");
  const db = c.var.db();
  const label = await q.findLabel(db, project, c.req.param("subscribable_id") ?? "", true, actor);
  if (!label) throw notFound("Label");
  if (label.subscribed === subscribed) return c.body(null, 304);
  await setSubscription(db, { type: "Label", subscribableId: label.id, userId: actor.user.id, projectId: project.id, subscribed });
  return present(c, { ...label, counts: null, subscribed }, projectLabel, { projectId: project.id }, 201);
}

/** POST /projects/:id/labels/:subscribable_id/subscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/projects/:id/labels/:subscribable_id/subscribe", (c) => toggle(c, true));

/** POST /projects/:id/labels/:subscribable_id/unsubscribe (lib/api/subscriptions.rb) */
labelSubscriptionRoutes.post("/projects/:id/labels/:subscribable_id/unsubscribe", (c) => toggle(c, false));
