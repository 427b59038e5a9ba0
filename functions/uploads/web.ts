import { Hono } from "hono";
import type { AppEnv } from "../kernel/env";
import { ApiError, notFound } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { avatarOwner, avatarPath, type AvatarModel } from "../shared/uploads";
import * as q from "./queries";
import { isEmbeddable } from "./rules";

/**
 * The web path of project attachments (Projects::UploadsController#show, outside /api/v4):
 * `GET /<project full path>/uploads/<secret>/<filename>`, readable exactly as the project is.
 * Differs from GitLab: the caller is known by the API's credentials (PRIVATE-TOKEN, Bearer), as there
 * are no browser sessions; what the caller may not read is 404 (GitLab redirects anonymous browsers to
 * its sign-in page).
 */
export const uploadWebRoutes = new Hono<AppEnv>();

/** GET /:namespace/:project/uploads/:secret/:filename (app/controllers/projects/uploads_controller.rb) */
uploadWebRoutes.get("/:project{.+}/uploads/:secret{[0-9a-f]{32}}/:filename", async (c) => {
  const projectPath = c.req.param("project");
  // The API's own paths are never a project's: those stay unknown routes.
  if (projectPath.startsWith("api/")) return c.notFound();
  let project;
  try {
    project = await findProject(c, projectPath);
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? notFound() : error;
  }
  const upload = await q.findUpload(c.var.db(), project.id, `${c.req.param("secret")}/${c.req.param("filename")}`);
  if (!upload) throw notFound();
  const object = await c.env.BLOBS.get(upload.r2Key);
  if (!object) throw notFound();
  const fileName = c.req.param("filename");
  const embeddable = isEmbeddable(fileName);
  c.header("Content-Type", embeddable ? (upload.contentType ?? "application/octet-stream") : "application/octet-stream");
  c.header("Content-Length", String(object.size));
  c.header("Content-Disposition", `${embeddable ? "inline" : "attachment"}; filename="${fileName.replace(/"/g, "")}"`);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Cache-Control", "private, no-store");
  return c.body(object.body);
});

/**
 * Avatars (UploadsController#show for `user`, `project` and `group` avatars, outside /api/v4):
 * `GET /uploads/-/system/<model>/avatar/<id>/<filename>`, the current avatar only; user avatars are
 * public, a project's or group's are readable as the project or group is (else 404).
 */
/** Topic avatars (`Projects::Topic`, AvatarUploader's `projects/topic` folder): public, as topics are. */
uploadWebRoutes.get("/uploads/-/system/projects/topic/avatar/:id{[0-9]+}/:filename", async (c) => {
  const id = c.req.param("id");
  if (Number(id) > 2147483647) throw notFound();
  const path = avatarPath("topic", Number(id), c.req.param("filename"));
  if (!(await avatarOwner(c.var.db(), "topic", Number(id), path))) throw notFound();
  const object = await c.env.BLOBS.get(path.slice(1));
  if (!object) throw notFound();
  c.header("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
  c.header("Content-Length", String(object.size));
  c.header("Content-Disposition", `inline; filename="${c.req.param("filename").replace(/"/g, "")}"`);
  c.header("X-Content-Type-Options", "nosniff");
  return c.body(object.body);
});

uploadWebRoutes.get("/uploads/-/system/:model{user|project|group}/avatar/:id{[0-9]+}/:filename", async (c) => {
  const model = c.req.param("model") as AvatarModel;
  const id = c.req.param("id");
  if (Number(id) > 2147483647) throw notFound();
  try {
    if (model === "project") await findProject(c, id);
    if (model === "group") await findGroup(c, id);
  } catch (error) {
    throw error instanceof ApiError && error.status === 404 ? notFound() : error;
  }
  const path = avatarPath(model, Number(id), c.req.param("filename"));
  if (!(await avatarOwner(c.var.db(), model, Number(id), path))) throw notFound();
  const object = await c.env.BLOBS.get(path.slice(1));
  if (!object) throw notFound();
  c.header("Content-Type", object.httpMetadata?.contentType ?? "application/octet-stream");
  c.header("Content-Length", String(object.size));
  c.header("Content-Disposition", `inline; filename="${c.req.param("filename").replace(/"/g, "")}"`);
  c.header("X-Content-Type-Options", "nosniff");
  return c.body(object.body);
});
