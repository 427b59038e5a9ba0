/**
 * Gitlab::FileTypeDetection and FileUploader#markdown_name: pure, with the presenters because the upload
 * entity's `alt` and `markdown` depend on them; shared/uploads (avatars) and the uploads domain (inline
 * serving) read them too.
 */

/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT: the image formats (attachments inline, avatars accepted). */
export const SAFE_IMAGE_EXT = ["png", "jpg", "jpeg", "gif", "bmp", "tiff", "ico", "webp"];
/** Gitlab::FileTypeDetection::SAFE_VIDEO_EXT. */
const SAFE_VIDEO_EXT = new Set(["mp4", "m4v", "mov", "webm", "ogv"]);

/** The lower-cased extension of a file name, "" without one. */
export const extension = (fileName: string) => (fileName.includes(".") ? fileName.split(".").pop()!.toLowerCase() : "");

/** `image_or_video?`: what renders inline (`![…]`). */
export function isImageOrVideo(fileName: string): boolean {
  const ext = extension(fileName);
  return SAFE_IMAGE_EXT.includes(ext) || SAFE_VIDEO_EXT.has(ext);
}

/** FileUploader#markdown_name: an image's name without its extension, `]` escaped. */
export function markdownName(fileName: string): string {
  const name = isImageOrVideo(fileName) ? fileName.slice(0, fileName.length - extension(fileName).length - 1) : fileName;
  return name.replace(/]/g, "\\]");
}
