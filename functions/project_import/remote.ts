import type { Executor } from "../kernel/db";
import { loadSettings } from "../shared/settings/load";
import { blockedReason, type GuardOptions } from "../shared/webhooks/url_guard";

/**
 * The remote archive of `POST /projects/remote-import` and `remote-import-s3`
 * (Import::GitlabProjects::FileAcquisitionStrategies::RemoteFile, RemoteFileValidator): the URL passes
 * the outbound-request guard of webhooks (Gitlab::UrlBlocker, `allow_local_requests_from_web_hooks_and_services`
 * and `outbound_local_requests_whitelist`) on every hop of a redirect, its HEAD answers a tar.gz type and
 * a size, and the import job downloads it.
 *
 * Differs from GitLab: GitLab accepts `https` only; Edgeforge also accepts `http` while local requests are
 * allowed (a server on the local network seldom has a certificate the Worker trusts). Host names are not
 * resolved before the request (url_guard.ts says why).
 */

/** RemoteFileValidator: ALLOWED_CONTENT_TYPES and FILE_SIZE_LIMIT. */
export const ALLOWED_CONTENT_TYPES = ["application/gzip", "application/x-tar", "application/x-gzip"];
export const FILE_SIZE_LIMIT = 10 * 1024 ** 3;
/** The longest archive a Worker downloads into memory (the uploaded path has the request's own limit). */
export const DOWNLOAD_LIMIT = 1024 ** 3;
const MAX_REDIRECTS = 5;

export class RemoteFileError extends Error {}

export async function outboundGuard(db: Executor): Promise<GuardOptions> {
  const settings = await loadSettings(db);
  return {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  };
}

/** The reason `url` may not be requested (AddressableUrlValidator's text after "is blocked: "), or null. */
export function remoteUrlBlocked(url: string, guard: GuardOptions): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return "Only allowed schemes are https";
  }
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && guard.allowLocal)) return "Only allowed schemes are https";
  return blockedReason(url, guard);
}

/** `fetch` that follows redirects itself, refusing a hop the guard blocks. */
export async function guardedFetch(request: Request, guard: GuardOptions, timeoutMs: number): Promise<Response> {
  let current = request;
  for (let hop = 0; ; hop++) {
    const reason = remoteUrlBlocked(current.url, guard);
    if (reason) throw new RemoteFileError(`URL is blocked: ${reason}`);
    const response = await fetch(current, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return response;
    if (hop >= MAX_REDIRECTS) throw new RemoteFileError("Too many redirects");
    await response.body?.cancel();
    current = new Request(new URL(location, current.url), { method: current.method, headers: current.headers });
  }
}

/** What RemoteFileValidator reads: the content type and length (HEAD's headers). */
export type RemoteHeaders = { contentType: string | null; contentLength: number; s3: boolean };

export function remoteHeaders(response: Response): RemoteHeaders {
  return {
    contentType: response.headers.get("content-type")?.split(";")[0].trim() ?? null,
    contentLength: Number(response.headers.get("content-length") ?? 0) || 0,
    s3: response.headers.get("server") === "AmazonS3" && !!response.headers.get("x-amz-request-id"),
  };
}

/** RemoteFileValidator's messages, in its order (content length, then content type). */
export function remoteFileErrors(h: RemoteHeaders): string[] {
  const errors: string[] = [];
  if (h.contentLength <= 0) errors.push("Content length is too small (should be at least 1 Byte)");
  else if (h.contentLength > FILE_SIZE_LIMIT) errors.push("Content length is too big (should be at most 10 GB)");
  if (!h.contentType || !ALLOWED_CONTENT_TYPES.includes(h.contentType))
    errors.push(`Content type '${h.contentType ?? ""}' not allowed. (Allowed: ${ALLOWED_CONTENT_TYPES.join(", ")})`);
  return errors;
}

/** The import job's download: the archive's bytes, at most DOWNLOAD_LIMIT. */
export async function downloadArchive(url: string, guard: GuardOptions): Promise<Uint8Array> {
  const response = await guardedFetch(new Request(url), guard, 600_000);
  if (!response.ok) {
    await response.body?.cancel();
    throw new RemoteFileError(`Failed to download the import file: HTTP ${response.status}`);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > DOWNLOAD_LIMIT) {
      await reader.cancel();
      throw new RemoteFileError("The import file is larger than the Worker can read (1 GiB)");
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
