import { Hono } from "hono";
import { authenticate } from "./kernel/auth";
import { lazyDatabase } from "./kernel/db";
import type { AppEnv } from "./kernel/env";
import { onError, onNotFound } from "./kernel/errors";
import { throttleRequests } from "./shared/settings/throttle";
import { declaredParams, recordParameterless, rejectMalformedStrings, withRequestScope } from "./kernel/params";
import { groupsRoutes } from "./groups/routes";
import { membersRoutes } from "./members/routes";
import { personalAccessTokensRoutes } from "./personal_access_tokens/routes";
import { projectsRoutes } from "./projects/routes";
import { usersRoutes } from "./users/routes";
import { versionRoutes } from "./version/routes";
import { notesRoutes } from "./notes/routes";
import { discussionsRoutes } from "./discussions/routes";
import { awardEmojiRoutes } from "./award_emoji/routes";
import { snippetsRoutes } from "./snippets/routes";
import { subscriptionsRoutes } from "./subscriptions/routes";
import { geoNodesRoutes } from "./geo_nodes/routes";
import { epicsRoutes } from "./epics/routes";
import { mergeRequestsRoutes } from "./merge_requests/routes";
import { issueLinksRoutes } from "./issue_links/routes";
import { todosRoutes } from "./todos/routes";
import { timeTrackingRoutes } from "./time_tracking/routes";
import { userAgentDetailsRoutes } from "./user_agent_details/routes";
import { metricImagesRoutes } from "./metric_images/routes";
import { issuesRoutes } from "./issues/routes";
import { labelsRoutes } from "./labels/routes";
import { milestonesRoutes } from "./milestones/routes";
import { metricImageUploadRoutes } from "./metric_images/uploads";
import { branchesRoutes } from "./branches/routes";
import { tagsRoutes } from "./tags/routes";
import { repositoryRoutes } from "./repository/routes";
import { commitsRoutes } from "./commits/routes";
import { gitHttpRoutes } from "./git_http/routes";
import { lfsRoutes } from "./lfs/routes";
import { badgeImageRoutes } from "./badges/routes";
import { protectedBranchesRoutes } from "./protected_branches/routes";
import { commitStatusesRoutes } from "./commit_statuses/routes";
import { pipelinesRoutes } from "./pipelines/routes";
import { pipelineSchedulesRoutes } from "./pipeline_schedules/routes";
import { pipelineTriggersRoutes } from "./pipeline_triggers/routes";
import { groupVariablesRoutes, instanceVariablesRoutes, projectVariablesRoutes } from "./ci_variables/routes";
import { jobsRoutes } from "./jobs/routes";
import { runnerProtocolRoutes, runnersRoutes } from "./runners/routes";
import { keysRoutes, userKeysRoutes } from "./keys/routes";
import { applicationSettingsRoutes } from "./application_settings/routes";
import { licenseRoutes } from "./license/routes";
import { notificationSettingsRoutes } from "./notification_settings/routes";
import { billableMembersRoutes } from "./billable_members/routes";
import { featureFlagsRoutes } from "./feature_flags/routes";
import { featureFlagsUserListsRoutes } from "./feature_flags_user_lists/routes";
import { environmentsRoutes } from "./environments/routes";
import { featureFlagsClientRoutes, unleashRoutes } from "./unleash/routes";
import { badgesRoutes } from "./badges/routes";
import { namespacesRoutes } from "./namespaces/routes";
import { alertManagementRoutes } from "./alert_management/routes";
import { alertReceiverRoutes } from "./alert_management/receiver";
import { alertMetricImageUploadRoutes } from "./alert_management/uploads";
import { genericPackagesRoutes, npmPackagesRoutes, packagesRoutes } from "./packages/routes";
import { hooksRoutes } from "./hooks/routes";
import { integrationsRoutes } from "./integrations/routes";
import { projectExportRoutes } from "./project_export/routes";
import { projectSnapshotsRoutes } from "./project_snapshots/routes";
import { projectImportRoutes } from "./project_import/routes";
import { approvalsRoutes } from "./approvals/routes";
import { eventsRoutes } from "./events/routes";
import { uploadsRoutes } from "./uploads/routes";
import { uploadWebRoutes } from "./uploads/web";
import { userStatusRoutes } from "./user_status/routes";
import { emailsRoutes } from "./emails/routes";
import { gpgKeysRoutes } from "./gpg_keys/routes";
import { impersonationTokensRoutes } from "./impersonation_tokens/routes";
import { customAttributesRoutes } from "./custom_attributes/routes";
import { externalStatusChecksRoutes } from "./external_status_checks/routes";

/** Runs of `/` collapse and one trailing `/` is dropped; percent-encoding survives (`grp%2Fsub`). */
function getPath(req: Request): string {
  const url = req.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  const end = url.indexOf("?", start);
  let path = start < 0 ? "/" : url.slice(start, end < 0 ? undefined : end);
  path = path.replace(/\/{2,}/g, "/");
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

export const app = new Hono<AppEnv>({ getPath });

// The request's context for kernel code below the routes (the parameter registry of `validateParams`).
app.use(withRequestScope);
app.use(async (c, next) => {
  const requestId = c.req.header("x-request-id") || crypto.randomUUID();
  c.set("requestId", requestId);
  await next();
  c.header("X-Request-Id", requestId);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "SAMEORIGIN");
});
app.use(rejectMalformedStrings);
app.use(lazyDatabase);
app.use("/api/v4/*", recordParameterless);
app.use("/api/v4/*", authenticate);
// Rack::Attack's user and IP throttles (application settings `throttle_*`), once the caller is known.
app.use("/api/v4/*", throttleRequests);
app.use("/uploads/*", authenticate);
// Project attachments (uploads/web.ts): the caller is known by the API's credentials.
app.use("/:project{.+}/uploads/:secret{[0-9a-f]{32}}/:filename", authenticate);

const api = new Hono<AppEnv>();
api.route("/", versionRoutes);
api.route("/", userKeysRoutes);
api.route("/", usersRoutes);
api.route("/", personalAccessTokensRoutes);
api.route("/", userStatusRoutes);
api.route("/", emailsRoutes);
api.route("/", gpgKeysRoutes);
api.route("/", impersonationTokensRoutes);
api.route("/", customAttributesRoutes);
api.route("/", groupsRoutes);
api.route("/", projectsRoutes);
api.route("/", namespacesRoutes);
api.route("/", membersRoutes);
api.route("/", timeTrackingRoutes);
api.route("/", userAgentDetailsRoutes);
api.route("/", metricImagesRoutes);
api.route("/", issuesRoutes);
api.route("/", labelsRoutes);
api.route("/", milestonesRoutes);
api.route("/", mergeRequestsRoutes);
api.route("/", issueLinksRoutes);
api.route("/", todosRoutes);
api.route("/", notesRoutes);
api.route("/", discussionsRoutes);
api.route("/", awardEmojiRoutes);
api.route("/", snippetsRoutes);
api.route("/", subscriptionsRoutes);
api.route("/", epicsRoutes);
api.route("/", commitsRoutes);
api.route("/", protectedBranchesRoutes);
api.route("/", commitStatusesRoutes);
api.route("/", branchesRoutes);
api.route("/", tagsRoutes);
api.route("/", repositoryRoutes);
api.route("/", pipelinesRoutes);
api.route("/", pipelineSchedulesRoutes);
api.route("/", pipelineTriggersRoutes);
api.route("/", projectVariablesRoutes);
api.route("/", groupVariablesRoutes);
api.route("/", instanceVariablesRoutes);
api.route("/", jobsRoutes);
api.route("/", runnerProtocolRoutes);
api.route("/", runnersRoutes);
api.route("/", keysRoutes);
api.route("/", geoNodesRoutes);
api.route("/", applicationSettingsRoutes);
api.route("/", licenseRoutes);
api.route("/", notificationSettingsRoutes);
api.route("/", billableMembersRoutes);
api.route("/", featureFlagsRoutes);
api.route("/", featureFlagsUserListsRoutes);
api.route("/", environmentsRoutes);
api.route("/", featureFlagsClientRoutes);
api.route("/", unleashRoutes);
api.route("/", badgesRoutes);
api.route("/", genericPackagesRoutes);
api.route("/", npmPackagesRoutes);
api.route("/", packagesRoutes);
api.route("/", hooksRoutes);
api.route("/", integrationsRoutes);
api.route("/", projectExportRoutes);
api.route("/", projectSnapshotsRoutes);
api.route("/", projectImportRoutes);
api.route("/", approvalsRoutes);
api.route("/", externalStatusChecksRoutes);
api.route("/", alertManagementRoutes);
api.route("/", eventsRoutes);
api.route("/", uploadsRoutes);
app.route("/api/v4", api);
app.route("/", metricImageUploadRoutes);
app.route("/", alertMetricImageUploadRoutes);
// Project attachments (`/<full_path>/uploads/<secret>/<filename>`), readable as the project is.
app.route("/", uploadWebRoutes);
// The alert receiver (`/<full_path>/-/alerts/notify/…`), outside /api/v4, authenticated by the integration key.
app.route("/", alertReceiverRoutes);
// Git smart HTTP (`/<full_path>.git/...`), outside /api/v4 with its own Basic authentication.
app.route("/", gitHttpRoutes);
// Git LFS (`/<full_path>.git/info/lfs/…`, `/<full_path>.git/gitlab-lfs/…`), authenticated as git is.
app.route("/", lfsRoutes);
// Pipeline and coverage badge images (`/<full_path>/badges/<ref>/pipeline.svg`), token as private_token or PRIVATE-TOKEN.
app.route("/", badgeImageRoutes);

// scripts/sweep.mjs (`npm run sweep`) reads, from a running instance, the routes and the parameters
// their handlers declared (kernel/params.ts `declaredParams`, filled as routes run). Internal: only
// when started with FUZZ_REGISTRY=1 (EDGEFORGE_FUZZ_REGISTRY=1 npm start), and only for administrators.
app.use("/-/fuzz-registry", authenticate);
app.get("/-/fuzz-registry", (c) => {
  if (c.env.FUZZ_REGISTRY !== "1" || !c.var.actor?.isAdmin) return onNotFound(c);
  const routes = [...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`))];
  const declared = Object.fromEntries([...declaredParams].map(([route, params]) => [route, Object.fromEntries(params)]));
  return c.json({ routes, declared });
});

app.notFound(onNotFound);
app.onError(onError);
