import * as z from "zod";
import type { RemoteMirror as RemoteMirrorRow } from "../../db/schema";
import { isoTime } from "../kernel/present";

/**
 * API::Entities::RemoteMirror (lib/api/entities/remote_mirror.rb, 15.4). `url` is `safe_url`: user and
 * password shown as `*****` (a `git` user is shown); the credentials are never returned.
 */
export const RemoteMirror = z
  .object({
    id: z.int(),
    enabled: z.boolean(),
    url: z.string(),
    update_status: z.string(),
    last_update_at: z.string().nullable(),
    last_update_started_at: z.string().nullable(),
    last_successful_update_at: z.string().nullable(),
    last_error: z.string().nullable(),
    only_protected_branches: z.boolean(),
    keep_divergent_refs: z.boolean(),
  })
  .meta({ id: "RemoteMirror" });

export function remoteMirror(row: RemoteMirrorRow): z.output<typeof RemoteMirror> {
  return {
    id: row.id,
    enabled: row.enabled,
    url: safeUrl(row.url, row.credentials),
    update_status: row.updateStatus,
    last_update_at: isoTime(row.lastUpdateAt),
    last_update_started_at: isoTime(row.lastUpdateStartedAt),
    last_successful_update_at: isoTime(row.lastSuccessfulUpdateAt),
    last_error: row.lastError,
    only_protected_branches: row.onlyProtectedBranches,
    keep_divergent_refs: row.keepDivergentRefs,
  };
}

/**
 * SafeUrl#safe_url(allowed_usernames: %w[git]): the password, and the user unless it is `git`, shown as
 * `*****`. What the API returns as `url`.
 */
export function safeUrl(url: string, credentials: { user?: string; password?: string }): string {
  const { user, password } = credentials;
  if (!user && !password) return url;
  const shownUser = user === undefined ? "" : user === "git" ? "git" : "*****";
  const auth = password ? `${shownUser}:*****@` : `${shownUser}@`;
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)/i, `$1${auth}`);
}

