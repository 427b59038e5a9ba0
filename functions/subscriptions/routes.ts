import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { Issue, issue, issueSubscribed } from "../entities/issues";
import { mergeRequest, MergeRequestEntity, mergeRequestSubscribed } from "../entities/merge_requests";
import { findIssue, findMergeRequest } from "../shared/issuables/find";
import { loadProjectIssue } from "../shared/issuables/issue_preload";
import { loadMergeRequestRows } from "../shared/issuables/merge_request_preload";
import { setSubscription } from "../shared/issuables/subscriptions";

/**
 * Subscriptions to issues and merge requests (lib/api/subscriptions.rb): `before { authenticate! }`;
 * the issuable is found as its own API finds it (unreadable: `404 Issue Not Found` /
 * `404 Merge Request Not Found`); `304 Not Modified` when `subscribed?` already says so (participants
 * are subscribed without a row); else the subscription at the project is written and the issuable
 * presented (201). Label subscriptions live in functions/labels/subscriptions.ts. No notification is sent.
 * Differs from GitLab: the merge request is presented without its head pipeline (`pipeline`,
 * `head_pipeline` null), as merge request lists load it.
 */
export const subscriptionsRoutes = router();

async function issueToggle(c: Ctx, subscribed: boolean) {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id") ?? "");
  const found = await findIssue(c, project, c.req.param("subscribable_id") ?? "");
  const db = c.var.db();
  const row = await loadProjectIssue(db, project.id, found.iid, actor);
  if (!row) throw notFound("Issue");
  if (issueSubscribed(row, { actor }) === subscribed) return c.body(null, 304);
  await setSubscription(db, { type: "Issue", subscribableId: row.id, userId: actor.user.id, projectId: project.id, subscribed });
  const from = { kind: "project", id: project.id, namespaceId: project.namespaceId } as const;
  return present(c, { ...row, actorSubscription: subscribed }, issue, { from }, 201);
}

async function mergeRequestToggle(c: Ctx, subscribed: boolean) {
  const actor = requireUser(c);
  const project = await findProject(c, c.req.param("id") ?? "");
  const found = await findMergeRequest(c, project, c.req.param("subscribable_id") ?? "");
  const db = c.var.db();
  const [row] = await loadMergeRequestRows(db, [found.id], actor);
  if (!row) throw notFound("Merge Request");
  if (mergeRequestSubscribed(row, { actor }) === subscribed) return c.body(null, 304);
  await setSubscription(db, { type: "MergeRequest", subscribableId: row.id, userId: actor.user.id, projectId: project.id, subscribed });
  return present(c, { ...row, actorSubscription: subscribed }, mergeRequest, { fromProject: { id: project.id, namespaceId: project.namespaceId } }, 201);
}

/** POST /projects/:id/issues/:subscribable_id/subscribe (lib/api/subscriptions.rb) */
subscriptionsRoutes.post("/projects/:id/issues/:subscribable_id/subscribe", { response: Issue, errors: [304] }, (c) => issueToggle(c, true));

/** POST /projects/:id/issues/:subscribable_id/unsubscribe (lib/api/subscriptions.rb) */
subscriptionsRoutes.post("/projects/:id/issues/:subscribable_id/unsubscribe", { response: Issue, errors: [304] }, (c) => issueToggle(c, false));

/** POST /projects/:id/merge_requests/:subscribable_id/subscribe (lib/api/subscriptions.rb) */
subscriptionsRoutes.post("/projects/:id/merge_requests/:subscribable_id/subscribe", { response: MergeRequestEntity, errors: [304] }, (c) => mergeRequestToggle(c, true));

/** POST /projects/:id/merge_requests/:subscribable_id/unsubscribe (lib/api/subscriptions.rb) */
subscriptionsRoutes.post("/projects/:id/merge_requests/:subscribable_id/unsubscribe", { response: MergeRequestEntity, errors: [304] }, (c) => mergeRequestToggle(c, false));
