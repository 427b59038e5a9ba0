import { Hono } from "hono";
import { routePath } from "hono/route";
import { authenticate } from "./kernel/auth";
import { lazyDatabase } from "./kernel/db";
import type { AppEnv } from "./kernel/env";
import { onError, onNotFound } from "./kernel/errors";
import { domain } from "./kernel/openapi";
import { router } from "./kernel/router";
import { throttleRequests } from "./shared/settings/throttle";
import { declaredParams, recordParameterless, rejectMalformedStrings, withRequestScope } from "./kernel/params";
import { groupsRoutes } from "./groups/routes";
import { groupExportRoutes } from "./group_export/routes";
import { groupImportRoutes } from "./group_import/routes";
import { membersRoutes } from "./members/routes";
import { personalAccessTokensRoutes } from "./personal_access_tokens/routes";
import { projectsRoutes } from "./projects/routes";
import { usersRoutes } from "./users/routes";
import { versionRoutes } from "./version/routes";
import { markdownRoutes } from "./markdown/routes";
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
import { iterationsRoutes } from "./iterations/routes";
import { boardsRoutes } from "./boards/routes";
import { metricImageUploadRoutes } from "./metric_images/uploads";
import { branchesRoutes } from "./branches/routes";
import { tagsRoutes } from "./tags/routes";
import { repositoryRoutes } from "./repository/routes";
import { commitsRoutes } from "./commits/routes";
import { gitHttpRoutes } from "./git_http/routes";
import { lfsRoutes } from "./lfs/routes";
import { badgeImageRoutes } from "./badges/routes";
import { protectedBranchesRoutes } from "./protected_branches/routes";
import { protectedTagsRoutes } from "./protected_tags/routes";
import { releasesRoutes } from "./releases/routes";
import { deployTokensRoutes } from "./deploy_tokens/routes";
import { resourceAccessTokensRoutes } from "./resource_access_tokens/routes";
import { commitStatusesRoutes } from "./commit_statuses/routes";
import { pipelinesRoutes } from "./pipelines/routes";
import { pipelineSchedulesRoutes } from "./pipeline_schedules/routes";
import { pipelineTriggersRoutes } from "./pipeline_triggers/routes";
import { groupVariablesRoutes, instanceVariablesRoutes, projectVariablesRoutes } from "./ci_variables/routes";
import { jobsRoutes } from "./jobs/routes";
import { runnerProtocolRoutes } from "./runners/routes";
import { runnersRoutes } from "./runners/admin";
import { keysRoutes, userKeysRoutes } from "./keys/routes";
import { applicationSettingsRoutes } from "./application_settings/routes";
import { licenseRoutes } from "./license/routes";
import { notificationSettingsRoutes } from "./notification_settings/routes";
import { billableMembersRoutes } from "./billable_members/routes";
import { featureFlagsRoutes } from "./feature_flags/routes";
import { featureFlagsUserListsRoutes } from "./feature_flags_user_lists/routes";
import { environmentsRoutes } from "./environments/routes";
import { deploymentsRoutes } from "./deployments/routes";
import { lintRoutes } from "./lint/routes";
import { terraformStateRoutes } from "./terraform_state/routes";
import { featureFlagsClientRoutes, unleashRoutes } from "./unleash/routes";
import { badgesRoutes } from "./badges/routes";
import { namespacesRoutes } from "./namespaces/routes";
import { alertManagementRoutes } from "./alert_management/routes";
import { alertReceiverRoutes } from "./alert_management/receiver";
import { alertMetricImageUploadRoutes } from "./alert_management/uploads";
import { genericPackagesRoutes, npmPackagesRoutes, packagesRoutes, pypiPackagesRoutes } from "./packages/routes";
import { hooksRoutes } from "./hooks/routes";
import { remoteMirrorsRoutes } from "./remote_mirrors/routes";
import { integrationsRoutes } from "./integrations/routes";
import { projectExportRoutes } from "./project_export/routes";
import { projectSnapshotsRoutes } from "./project_snapshots/routes";
import { projectImportRoutes } from "./project_import/routes";
import { ldapRoutes } from "./ldap/routes";
import { ldapGroupLinksRoutes } from "./ldap_group_links/routes";
import { samlGroupLinksRoutes } from "./saml_group_links/routes";
import { approvalsRoutes } from "./approvals/routes";
import { eventsRoutes } from "./events/routes";
import { uploadsRoutes } from "./uploads/routes";
import { wikisRoutes } from "./wikis/routes";
import { uploadWebRoutes } from "./uploads/web";
import { userStatusRoutes } from "./user_status/routes";
import { emailsRoutes } from "./emails/routes";
import { gpgKeysRoutes } from "./gpg_keys/routes";
import { impersonationTokensRoutes } from "./impersonation_tokens/routes";
import { customAttributesRoutes } from "./custom_attributes/routes";
import { externalStatusChecksRoutes } from "./external_status_checks/routes";
import { openapiRoutes } from "./openapi/routes";
import { topicsRoutes } from "./topics/routes";
import { templatesRoutes } from "./templates/routes";
import { broadcastMessagesRoutes } from "./broadcast_messages/routes";
import { featuresRoutes } from "./features/routes";
import { pushRulesRoutes } from "./push_rules/routes";
import { sidekiqRoutes } from "./sidekiq/routes";
import { userCountsRoutes } from "./user_counts/routes";
import { userActivitiesRoutes } from "./user_activities/routes";
import { statisticsRoutes } from "./statistics/routes";
import { projectStatisticsRoutes } from "./project_statistics/routes";
import { searchRoutes } from "./search/routes";
import { webNotFound, webRoutes } from "./web/routes";
import { distributionRoutes, jwtRoutes, registryRepositoriesRoutes } from "./container_registry/routes";
import { pagesRoutes } from "./pages/routes";
import { pagesHosts } from "./pages/serve";

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
// Internal (tests, ROUTE_HEADER=1): the route pattern that answered, for the OpenAPI contract test
// (test/helpers/contract.ts), which validates each response against that route's documented schema.
app.use(async (c, next) => {
  await next();
  if (c.env.ROUTE_HEADER) c.header("X-Route", `${c.req.method} ${routePath(c)}`);
});
app.use(rejectMalformedStrings);
app.use(lazyDatabase);
// Pages sites (functions/pages/serve.ts): a request whose Host is `<namespace>.<PAGES_DOMAIN>` or a custom
// domain is a site's, before any route of the instance; every other Host passes through untouched.
app.use(pagesHosts);
app.use("/api/v4/*", recordParameterless);
app.use("/api/v4/*", authenticate);
// Rack::Attack's user and IP throttles (application settings `throttle_*`), once the caller is known.
app.use("/api/v4/*", throttleRequests);
app.use("/uploads/*", authenticate);
// Project attachments (uploads/web.ts): the caller is known by the API's credentials.
app.use("/:project{.+}/uploads/:secret{[0-9a-f]{32}}/:filename", authenticate);

const api = new Hono<AppEnv>();
api.route("/", domain("version", versionRoutes));
api.route("/", domain("markdown", markdownRoutes));
api.route("/", domain("keys", userKeysRoutes));
api.route("/", domain("users", usersRoutes));
api.route("/", domain("personal_access_tokens", personalAccessTokensRoutes));
api.route("/", domain("user_status", userStatusRoutes));
api.route("/", domain("emails", emailsRoutes));
api.route("/", domain("gpg_keys", gpgKeysRoutes));
api.route("/", domain("impersonation_tokens", impersonationTokensRoutes));
api.route("/", domain("custom_attributes", customAttributesRoutes));
// Before the groups resource: `POST /groups/import` is not a group id.
api.route("/", domain("group_import", groupImportRoutes));
api.route("/", domain("group_export", groupExportRoutes));
api.route("/", domain("groups", groupsRoutes));
api.route("/", domain("projects", projectsRoutes));
api.route("/", domain("namespaces", namespacesRoutes));
api.route("/", domain("members", membersRoutes));
api.route("/", domain("time_tracking", timeTrackingRoutes));
api.route("/", domain("user_agent_details", userAgentDetailsRoutes));
api.route("/", domain("metric_images", metricImagesRoutes));
api.route("/", domain("issues", issuesRoutes));
api.route("/", domain("labels", labelsRoutes));
api.route("/", domain("milestones", milestonesRoutes));
api.route("/", domain("iterations", iterationsRoutes));
api.route("/", domain("boards", boardsRoutes));
api.route("/", domain("merge_requests", mergeRequestsRoutes));
api.route("/", domain("issue_links", issueLinksRoutes));
api.route("/", domain("todos", todosRoutes));
api.route("/", domain("notes", notesRoutes));
api.route("/", domain("discussions", discussionsRoutes));
api.route("/", domain("award_emoji", awardEmojiRoutes));
api.route("/", domain("snippets", snippetsRoutes));
api.route("/", domain("subscriptions", subscriptionsRoutes));
api.route("/", domain("epics", epicsRoutes));
api.route("/", domain("commits", commitsRoutes));
api.route("/", domain("protected_branches", protectedBranchesRoutes));
api.route("/", domain("commit_statuses", commitStatusesRoutes));
api.route("/", domain("branches", branchesRoutes));
api.route("/", domain("tags", tagsRoutes));
api.route("/", domain("protected_tags", protectedTagsRoutes));
api.route("/", domain("releases", releasesRoutes));
api.route("/", domain("deploy_tokens", deployTokensRoutes));
api.route("/", domain("resource_access_tokens", resourceAccessTokensRoutes));
api.route("/", domain("repository", repositoryRoutes));
api.route("/", domain("pipelines", pipelinesRoutes));
api.route("/", domain("pipeline_schedules", pipelineSchedulesRoutes));
api.route("/", domain("pipeline_triggers", pipelineTriggersRoutes));
api.route("/", domain("ci_variables", projectVariablesRoutes));
api.route("/", domain("ci_variables", groupVariablesRoutes));
api.route("/", domain("ci_variables", instanceVariablesRoutes));
api.route("/", domain("jobs", jobsRoutes));
api.route("/", domain("runners", runnerProtocolRoutes));
api.route("/", domain("runners", runnersRoutes));
api.route("/", domain("keys", keysRoutes));
api.route("/", domain("geo_nodes", geoNodesRoutes));
api.route("/", domain("application_settings", applicationSettingsRoutes));
api.route("/", domain("license", licenseRoutes));
api.route("/", domain("notification_settings", notificationSettingsRoutes));
api.route("/", domain("billable_members", billableMembersRoutes));
api.route("/", domain("feature_flags", featureFlagsRoutes));
api.route("/", domain("feature_flags_user_lists", featureFlagsUserListsRoutes));
api.route("/", domain("environments", environmentsRoutes));
api.route("/", domain("deployments", deploymentsRoutes));
api.route("/", domain("lint", lintRoutes));
api.route("/", domain("terraform_state", terraformStateRoutes));
api.route("/", domain("unleash", featureFlagsClientRoutes));
api.route("/", domain("unleash", unleashRoutes));
api.route("/", domain("badges", badgesRoutes));
api.route("/", domain("packages", genericPackagesRoutes));
api.route("/", domain("packages", npmPackagesRoutes));
api.route("/", domain("packages", pypiPackagesRoutes));
api.route("/", domain("container_registry", registryRepositoriesRoutes));
api.route("/", domain("packages", packagesRoutes));
api.route("/", domain("hooks", hooksRoutes));
api.route("/", domain("remote_mirrors", remoteMirrorsRoutes));
api.route("/", domain("integrations", integrationsRoutes));
api.route("/", domain("project_export", projectExportRoutes));
api.route("/", domain("project_snapshots", projectSnapshotsRoutes));
api.route("/", domain("project_import", projectImportRoutes));
api.route("/", domain("ldap", ldapRoutes));
api.route("/", domain("ldap_group_links", ldapGroupLinksRoutes));
api.route("/", domain("saml_group_links", samlGroupLinksRoutes));
api.route("/", domain("approvals", approvalsRoutes));
api.route("/", domain("external_status_checks", externalStatusChecksRoutes));
api.route("/", domain("alert_management", alertManagementRoutes));
api.route("/", domain("events", eventsRoutes));
api.route("/", domain("uploads", uploadsRoutes));
api.route("/", domain("topics", topicsRoutes));
api.route("/", domain("templates", templatesRoutes));
api.route("/", domain("search", searchRoutes));
api.route("/", domain("wikis", wikisRoutes));
api.route("/", domain("broadcast_messages", broadcastMessagesRoutes));
api.route("/", domain("features", featuresRoutes));
api.route("/", domain("push_rules", pushRulesRoutes));
api.route("/", domain("sidekiq", sidekiqRoutes));
api.route("/", domain("user_counts", userCountsRoutes));
api.route("/", domain("user_activities", userActivitiesRoutes));
api.route("/", domain("statistics", statisticsRoutes));
api.route("/", domain("project_statistics", projectStatisticsRoutes));
api.route("/", domain("pages", pagesRoutes));
// The OpenAPI document of every route `app` has, and its reference page (functions/openapi).
api.route("/", domain("openapi", openapiRoutes(app)));
app.route("/api/v4", api);
app.route("/", domain("metric_images", metricImageUploadRoutes));
app.route("/", domain("alert_management", alertMetricImageUploadRoutes));
// Project attachments (`/<full_path>/uploads/<secret>/<filename>`), readable as the project is.
app.route("/", domain("uploads", uploadWebRoutes));
// The alert receiver (`/<full_path>/-/alerts/notify/…`), outside /api/v4, authenticated by the integration key.
app.route("/", domain("alert_management", alertReceiverRoutes));
// Git smart HTTP (`/<full_path>.git/...`), outside /api/v4 with its own Basic authentication.
app.route("/", domain("git_http", gitHttpRoutes));
// The container registry: the OCI distribution API (`/v2/…`, Bearer tokens) and its token endpoint
// (`/jwt/auth`, HTTP Basic), outside /api/v4.
app.use("/v2/*", async (c, next) => {
  await next();
  c.header("Docker-Distribution-API-Version", "registry/2.0");
});
app.use("/v2", async (c, next) => {
  await next();
  c.header("Docker-Distribution-API-Version", "registry/2.0");
});
app.route("/", domain("container_registry", jwtRoutes));
app.route("/", domain("container_registry", distributionRoutes));
// Git LFS (`/<full_path>.git/info/lfs/…`, `/<full_path>.git/gitlab-lfs/…`), authenticated as git is.
app.route("/", domain("lfs", lfsRoutes));
// Pipeline and coverage badge images (`/<full_path>/badges/<ref>/pipeline.svg`), token as private_token or PRIVATE-TOKEN.
app.route("/", domain("badges", badgeImageRoutes));

// scripts/sweep.mjs (`npm run sweep`) reads, from a running instance, the routes and the parameters
// their handlers declared (kernel/params.ts `declaredParams`, filled as routes run). Internal: only
// when started with FUZZ_REGISTRY=1 (EDGEFORGE_FUZZ_REGISTRY=1 npm start), and only for administrators.
app.use("/-/fuzz-registry", authenticate);
const fuzzRegistry = router({ anyScope: true });
fuzzRegistry.get("/-/fuzz-registry", { summary: "Internal (FUZZ_REGISTRY=1, administrators): the routes and the parameters they declared" }, (c) => {
  if (c.env.FUZZ_REGISTRY !== "1" || !c.var.actor?.isAdmin) return onNotFound(c);
  const routes = [...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`))];
  const declared = Object.fromEntries([...declaredParams].map(([route, params]) => [route, Object.fromEntries(params)]));
  return c.json({ routes, declared });
});
app.route("/", domain("internal", fuzzRegistry));

// The web front (functions/web): HTML pages at GitLab's paths, after every route above so that those
// keep precedence. An unknown path answers the HTML 404 page, and under /api/ GitLab's JSON 404.
app.route("/", domain("web", webRoutes));
app.notFound(webNotFound);
app.onError(onError);
