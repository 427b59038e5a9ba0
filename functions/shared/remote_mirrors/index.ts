import { withDb, type Executor } from "../../kernel/db";
import type { Bindings, MirrorMessage } from "../../kernel/env";
import { listProtections } from "../protected_branches/access";
import { refMatches } from "../protected_branches/rules";
import { loadSettings } from "../settings/load";
import { blockedReason } from "../webhooks/url_guard";
import { MirrorError, pushMirror } from "./push";
import * as q from "./queries";
import { fullUrl, safeUrl, scrub } from "./url";

/**
 * Push mirrors (app/services/projects/update_remote_mirror_service.rb, RepositoryUpdateRemoteMirrorWorker):
 * after every ref update `mirrorsForPush` enqueues the project on `edgeforge-mirrors`; the consumer
 * enqueues one message per enabled mirror, and each mirror's update pushes over smart HTTP (./push.ts),
 * retried alone with backoff. The status columns are written here only.
 */
export type { MirrorMessage } from "../../kernel/env";
export { safeUrl, splitCredentials, urlErrors } from "./url";

/** Projects::UpdateRemoteMirrorService::MAX_TRIES: the third failed attempt marks the mirror failed. */
export const MAX_TRIES = 3;

/** Call after any ref update (shared/ci/coordinator.ts `pipelinesForPush`, branch and tag writes): enqueue and return. */
export async function mirrorsForPush(env: Bindings, projectId: number): Promise<void> {
  await send(env, { kind: "project", projectId });
}

/** `POST /projects/:id/remote_mirrors/:mirror_id/sync` and enabling a mirror: one update of that mirror. */
export async function syncMirror(env: Bindings, mirrorId: number): Promise<void> {
  await send(env, { kind: "mirror", mirrorId });
}

async function send(env: Bindings, message: MirrorMessage): Promise<void> {
  if (!env.MIRRORS_QUEUE) return;
  try {
    await env.MIRRORS_QUEUE.send(message);
  } catch (err) {
    // As webhooks: the change that triggered it must not fail for its mirrors.
    console.error(`mirrors: enqueue failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export type UpdateOutcome = { status: "finished" | "failed" | "to_retry" | "skipped" | "busy"; error?: string };

/**
 * One update of one mirror (Projects::UpdateRemoteMirrorService#execute): claim it (`started`), check the
 * outbound rules again, push, and leave `finished`, or `failed` with the divergent refs, or the error as
 * `to_retry` (attempts before the last) or `failed`.
 */
export async function updateMirror(db: Executor, mirrorId: number, attempt: number): Promise<UpdateOutcome> {
  const claimed = await q.claimMirror(db, mirrorId);
  if ("skipped" in claimed) return { status: "skipped" };
  if ("busy" in claimed) return { status: "busy" };
  const { mirror, project } = claimed;
  const settings = await loadSettings(db);
  const url = fullUrl(mirror.url, mirror.credentials);
  const shownUrl = safeUrl(mirror.url, mirror.credentials);
  const guard = {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  };
  if (blockedReason(url, guard) !== null) {
    // Differs from GitLab (which tries MAX_TRIES times): a blocked URL fails at once, retrying cannot help.
    await q.failMirror(db, mirror.id, "The remote mirror URL is invalid.", false);
    return { status: "failed", error: "The remote mirror URL is invalid." };
  }
  try {
    const protections = mirror.onlyProtectedBranches ? (await listProtections(db, project.id)).map((p) => p.name) : null;
    const result = await pushMirror(
      db,
      { repo: { projectId: project.id, poolId: project.poolId }, url: mirror.url, shownUrl, credentials: mirror.credentials },
      { keepDivergentRefs: mirror.keepDivergentRefs, branchInScope: (branch) => protections === null || protections.some((p) => refMatches(p, branch)) },
    );
    if (result.divergent.length) {
      const message = `Some refs have diverged and have not been updated on the remote:\n\n${result.divergent.join("\n")}`;
      await q.failMirror(db, mirror.id, message, false);
      return { status: "failed", error: message };
    }
    await q.finishMirror(db, mirror.id);
    return { status: "finished" };
  } catch (error) {
    const text = error instanceof MirrorError ? error.message : `${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}`;
    if (!(error instanceof MirrorError)) console.error(`mirrors: update of mirror ${mirror.id} failed:`, error);
    const message = scrub(text, mirror.credentials);
    const retry = attempt < MAX_TRIES;
    await q.failMirror(db, mirror.id, message, retry);
    return { status: retry ? "to_retry" : "failed", error: message };
  }
}

/** Seconds before attempt `n + 1` (RemoteMirror's backoff is minutes; a queue retry waits less). */
export const retryDelay = (attempt: number) => Math.min(300, 10 * 2 ** (attempt - 1));

/** The consumer of `edgeforge-mirrors` (functions/queue.ts). */
export async function consumeMirrors(batch: MessageBatch<MirrorMessage>, env: Bindings): Promise<void> {
  await withDb(env, async (db) => {
    for (const msg of batch.messages) {
      try {
        const body = msg.body;
        if (body.kind === "project") {
          const ids = await q.enabledMirrorIds(db, body.projectId);
          if (ids.length && env.MIRRORS_QUEUE) await env.MIRRORS_QUEUE.sendBatch(ids.map((mirrorId) => ({ body: { kind: "mirror", mirrorId } as MirrorMessage })));
          msg.ack();
          continue;
        }
        const outcome = await updateMirror(db, body.mirrorId, msg.attempts);
        // Another update of this mirror is running: a fresh message once it is likely done, so the newest
        // refs go out (a new message, so the wait does not count as one of this update's attempts).
        if (outcome.status === "busy") {
          await env.MIRRORS_QUEUE?.send({ kind: "mirror", mirrorId: body.mirrorId }, { delaySeconds: 15 });
          msg.ack();
        }
        else if (outcome.status === "to_retry") msg.retry({ delaySeconds: retryDelay(msg.attempts) });
        else msg.ack();
      } catch (error) {
        console.error("mirrors: consumer failed:", error);
        msg.retry({ delaySeconds: retryDelay(msg.attempts) });
      }
    }
  });
}
