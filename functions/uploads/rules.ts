import { SAFE_IMAGE_EXT as SAFE_IMAGE_EXT_LIST } from "../shared/uploads";

/**
 * FileUploader's naming and Gitlab::FileTypeDetection, for project attachments.
 */

/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT and SAFE_VIDEO_EXT: what renders inline (`![…]`). */
const SAFE_IMAGE_EXT = new Set(SAFE_IMAGE_EXT_LIST);
const SAFE_VIDEO_EXT = new Set(["mp4", "m4v", "mov", "webm", "ogv"]);

const extension = (fileName: string) => (fileName.includes(".") ? fileName.split(".").pop()!.toLowerCase() : "");

/** `image_or_video?`. */
export function isImageOrVideo(fileName: string): boolean {
  const ext = extension(fileName);
  return SAFE_IMAGE_EXT.has(ext) || SAFE_VIDEO_EXT.has(ext);
}

/** `embeddable?`: served inline (images, videos, PDFs), everything else as an attachment (UploadsActions#show). */
export function isEmbeddable(fileName: string): boolean {
  return isImageOrVideo(fileName) || extension(fileName) === "pdf";
}

export { sanitizeFilename } from "../shared/uploads";

/** FileUploader#markdown_name: an image's name without its extension, `]` escaped. */
export function markdownName(fileName: string): string {
  const name = isImageOrVideo(fileName) ? fileName.slice(0, fileName.length - extension(fileName).length - 1) : fileName;
  return name.replace(/]/g, "\\]");
}

/** `SecureRandom.hex`: 32 lowercase hex characters. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
