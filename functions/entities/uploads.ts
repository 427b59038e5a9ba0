import * as z from "zod";
import type { Upload } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { isImageOrVideo, markdownName } from "./file_types";

export type UploadRow = Upload & { projectFullPath: string };

/**
 * API::Entities::ProjectUpload (15.4): `alt` (markdown_name), `url` (secure_url, relative to the
 * project), `full_path` (show_project_uploads_path) and `markdown` (`![alt](url)` for images and
 * videos, `[alt](url)` otherwise).
 */
export const ProjectUpload = z.object({ alt: z.string(), url: z.string(), full_path: z.string(), markdown: z.string() }).meta({ id: "ProjectUpload" });
export function projectUpload(row: UploadRow, _ctx?: PresentContext): z.output<typeof ProjectUpload> {
  const fileName = row.path.slice(row.secret.length + 1);
  const alt = markdownName(fileName);
  const url = `/uploads/${row.secret}/${fileName}`;
  return {
    alt,
    url,
    full_path: `/${row.projectFullPath}/uploads/${row.secret}/${fileName}`,
    markdown: `${isImageOrVideo(fileName) ? "!" : ""}[${alt}](${url})`,
  };
}
