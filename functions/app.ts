import { Hono } from "hono";
import { authenticate } from "./kernel/auth";
import { lazyDatabase } from "./kernel/db";
import type { AppEnv } from "./kernel/env";
import { onError, onNotFound } from "./kernel/errors";
import { groupsRoutes } from "./groups/routes";
import { membersRoutes } from "./members/routes";
import { personalAccessTokensRoutes } from "./personal_access_tokens/routes";
import { projectsRoutes } from "./projects/routes";
import { usersRoutes } from "./users/routes";
import { versionRoutes } from "./version/routes";

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
app.use(lazyDatabase);
app.use("/api/v4/*", authenticate);

const api = new Hono<AppEnv>();
api.route("/", versionRoutes);
api.route("/", usersRoutes);
api.route("/", personalAccessTokensRoutes);
api.route("/", groupsRoutes);
api.route("/", projectsRoutes);
api.route("/", membersRoutes);
app.route("/api/v4", api);

app.notFound(onNotFound);
app.onError(onError);
