import { Hono } from "hono";
import { authenticate } from "./kernel/auth";
import { lazyDatabase } from "./kernel/db";
import type { AppEnv } from "./kernel/env";
import { onError, onNotFound } from "./kernel/errors";
import { rejectMalformedStrings } from "./kernel/params";
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
import { keysRoutes, userKeysRoutes } from "./keys/routes";

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
app.use("/api/v4/*", authenticate);
app.use("/uploads/*", authenticate);

const api = new Hono<AppEnv>();
api.route("/", versionRoutes);
api.route("/", userKeysRoutes);
api.route("/", usersRoutes);
api.route("/", personalAccessTokensRoutes);
api.route("/", groupsRoutes);
api.route("/", projectsRoutes);
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
api.route("/", epicsRoutes);
api.route("/", commitsRoutes);
api.route("/", branchesRoutes);
api.route("/", tagsRoutes);
api.route("/", repositoryRoutes);
api.route("/", keysRoutes);
app.route("/api/v4", api);
app.route("/", metricImageUploadRoutes);

app.notFound(onNotFound);
app.onError(onError);
