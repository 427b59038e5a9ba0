import type { WebHook } from "../../../db/schema";
import { GITLAB_VERSION } from "../../entities/version";
import { blockedReason, type GuardOptions } from "./url_guard";

/** What one delivery came to: the receiver's status and body, or why no request was made or answered. */
export type DeliveryResult = { ok: true; status: number; body: string } | { ok: false; error: string };

const TIMEOUT_MS = 10_000;
/** WebHookService::RESPONSE_BODY_SIZE_LIMIT: the body kept of a receiver's answer. */
const RESPONSE_BODY_LIMIT = 8192;

/**
 * One POST of `payload` to `hook.url` (app/services/web_hook_service.rb): JSON body, `X-Gitlab-Event`,
 * `X-Gitlab-Event-UUID`, `X-Gitlab-Instance`, `X-Gitlab-Token` when the hook has a token, GitLab's
 * User-Agent, no redirects followed (`follow_redirects: false`). The URL is checked again at delivery,
 * because the local-requests setting may have changed since the hook was saved.
 */
export async function deliver(
  hook: Pick<WebHook, "url" | "token">,
  eventHeader: string,
  payload: unknown,
  opts: GuardOptions & { instanceUrl: string; uuid?: string; plain?: boolean },
): Promise<DeliveryResult> {
  const blocked = blockedReason(hook.url, opts);
  if (blocked) return { ok: false, error: `URL is blocked: ${blocked}` };
  // `plain`: external status checks (ExternalStatusChecks::DispatchService) send the JSON body alone.
  const headers: Record<string, string> = opts.plain
    ? { "Content-Type": "application/json", "User-Agent": `GitLab/${GITLAB_VERSION.replace(/-ee$/, "")}` }
    : {
        "Content-Type": "application/json",
        "User-Agent": `GitLab/${GITLAB_VERSION.replace(/-ee$/, "")}`,
        "X-Gitlab-Event": eventHeader,
        "X-Gitlab-Event-UUID": opts.uuid ?? crypto.randomUUID(),
        "X-Gitlab-Instance": opts.instanceUrl,
      };
  if (hook.token) headers["X-Gitlab-Token"] = hook.token;
  return post(hook.url, headers, JSON.stringify(payload));
}

/** The POST itself: no redirects followed, a timeout, the response body kept up to the limit. */
async function post(url: string, headers: Record<string, string>, body: string): Promise<DeliveryResult> {
  try {
    const res = await fetch(url.trim(), { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { ok: true, status: res.status, body: (await res.text()).slice(0, RESPONSE_BODY_LIMIT) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * One chat notification (a chat integration's `notify`): the service's own body and content type to
 * its `webhook`, through the same guard as project hooks, no redirects followed.
 */
export async function deliverChat(url: string, request: { contentType: string; body: string }, opts: GuardOptions): Promise<DeliveryResult> {
  const blocked = blockedReason(url, opts);
  if (blocked) return { ok: false, error: `URL is blocked: ${blocked}` };
  return post(url, { "Content-Type": request.contentType }, request.body);
}
