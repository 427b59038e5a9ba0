import * as z from "zod";
import { requireUser } from "../kernel/auth";
import { tooLarge } from "../kernel/errors";
import { authorizedProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { projectUpload, ProjectUpload } from "../entities/uploads";
import { sanitizeFilename } from "./rules";
import * as services from "./services";

/** Project attachments (lib/api/projects.rb `POST :id/uploads`, UploadService, FileUploader). */
export const uploadsRoutes = router();

const UploadFile = z.object({ file: p.file() });

/**
 * POST /projects/:id/uploads: 201 with Entities::ProjectUpload, for signed-in callers who may comment
 * on the project (ProjectPolicy `upload_file` goes with guest access, and public readers).
 * Differs from GitLab: a file over the `max_attachment_size` setting (MB) answers 413 "Request Entity
 * Too Large"; GitLab 15.4's UploadService returns nothing for it and the API presents an empty upload.
 */
uploadsRoutes.post("/projects/:id/uploads", { params: UploadFile, response: ProjectUpload, errors: [413] }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, UploadFile);
  const project = await authorizedProject(c, "create_note");
  const db = c.var.db();
  const settings = await loadSettings(db);
  if (params.file.size > settings.max_attachment_size * 1024 * 1024) throw tooLarge();
  const upload = await services.storeUpload(db, c.env.BLOBS, {
    projectId: project.id,
    userId: actor.user.id,
    fileName: sanitizeFilename(params.file.name),
    file: params.file,
  });
  return present(c, { ...upload, projectFullPath: project.fullPath }, projectUpload, {}, 201);
});
