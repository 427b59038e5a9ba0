import { extension, isImageOrVideo } from "../entities/file_types";

/**
 * FileUploader's naming and Gitlab::FileTypeDetection, for project attachments (the presenters' part,
 * `image_or_video?` and `markdown_name`, is entities/file_types).
 */

/** `embeddable?`: served inline (images, videos, PDFs), everything else as an attachment (UploadsActions#show). */
export function isEmbeddable(fileName: string): boolean {
  return isImageOrVideo(fileName) || extension(fileName) === "pdf";
}

export { sanitizeFilename } from "../shared/uploads";

/** `SecureRandom.hex`: 32 lowercase hex characters. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
