import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Actor } from "../kernel/env";
import { canUpdateIssue, type IssueWithAssignees } from "../shared/issuables/policy";

/**
 * Metric image rules: the abilities of EE IssuablePolicy and the validations of MetricImageUploading
 * (ee/app/models/concerns/metric_image_uploading.rb).
 */

/** 1 megabyte (`MetricImageUploading::MAX_FILE_SIZE`). */
export const MAX_FILE_SIZE = 1024 * 1024;
/** Gitlab::FileTypeDetection::SAFE_IMAGE_EXT. */
const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "bmp", "tiff", "ico", "webp"];
const URL_MAX = 255;
const URL_TEXT_MAX = 128;

/** `upload_issuable_metric_image` needs an incident (`metric_images_available?`): "Not allowed!" otherwise. */
export const isIncident = (issue: IssueWithAssignees) => issue.issueType === "incident";

/** `~is_project_member` prevents every metric image write, for administrators too. */
function isProjectMember(project: ProjectWithAccess): boolean {
  return project.accessLevel >= Access.GUEST;
}

/**
 * `update_issue` as IssuePolicy grants it: reporters and up, or the author or an assignee of an issue
 * that is not an incident.
 */
function canUpdate(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  return allowed(actor, "update_issue", project) || (!isIncident(issue) && canUpdateIssue(actor, project, issue));
}

/** `upload_issuable_metric_image`: `create_issue & update_issue`, members only. */
export function canUpload(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  return isProjectMember(project) && allowed(actor, "create_issue", project) && canUpdate(actor, project, issue);
}

/** `update_issuable_metric_image` / `destroy_issuable_metric_image`: the author, or `create_issue & update_issue`. */
export function canChange(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  if (!isProjectMember(project)) return false;
  return issue.authorId === actor.user.id || (allowed(actor, "create_issue", project) && canUpdate(actor, project, issue));
}

/** CarrierWave's sanitized name: the base name, anything but word characters, `.`, `-` and `+` as `_`. */
export function sanitizeFilename(name: string): string {
  const base = name.replace(/\\/g, "/").split("/").pop() ?? "";
  return base.replace(/[^\p{L}\p{N}_.\-+]/gu, "_");
}

/**
 * PublicUrlValidator over Gitlab::UrlBlocker: http(s) only, never localhost or the local network.
 * Differs from GitLab: host names are not resolved (Workers have no DNS API), so only literal
 * addresses and `localhost` are refused.
 */
function blockedUrl(value: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return "Only allowed schemes are http, https";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "URI is invalid";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only allowed schemes are http, https";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "::" || /^(127\.|0\.)/.test(host))
    return "Requests to localhost are not allowed";
  if (/^169\.254\./.test(host) || /^fe[89ab][0-9a-f]:/.test(host)) return "Requests to the link local network are not allowed";
  if (
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./.test(host) ||
    /^f[cd][0-9a-f]{2}:/.test(host)
  )
    return "Requests to the local network are not allowed";
  return null;
}

/** ActiveModel full messages of an image's validations, in GitLab's order (file, url, url_text). */
export function imageErrors(image: { fileName?: string; url?: string | null; urlText?: string | null }): string[] {
  const errors: string[] = [];
  if (image.fileName !== undefined) {
    const extension = image.fileName.includes(".") ? image.fileName.split(".").pop()!.toLowerCase() : "";
    if (!IMAGE_EXTENSIONS.includes(extension))
      errors.push("File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported");
  }
  if (image.url) {
    if (image.url.length > URL_MAX) errors.push(`Url is too long (maximum is ${URL_MAX} characters)`);
    const blocked = blockedUrl(image.url.trim());
    if (blocked) errors.push(`Url is blocked: ${blocked}`);
  }
  if (image.urlText && image.urlText.length > URL_TEXT_MAX) errors.push(`Url text is too long (maximum is ${URL_TEXT_MAX} characters)`);
  return errors;
}
