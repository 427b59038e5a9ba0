import { withDb } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import type { JobStatusChange } from "../shared/ci/finished";
import * as q from "./queries";
import { publishPagesJob } from "./services";

/**
 * A `pages` job that succeeded is published through the `edgeforge-pages` queue (PagesWorker in
 * GitLab): registered with the one reporter of job status changes (functions/index.ts), it looks up
 * which succeeded jobs are named `pages` (one statement, only when a batch has a success) and enqueues
 * them, so the runner's job update never waits on unpacking a site.
 */
export async function pagesJobsFinished(env: Bindings, changes: JobStatusChange[]): Promise<void> {
  const succeeded = changes.filter((c) => c.status === "success").map((c) => c.id);
  if (succeeded.length === 0 || !env.PAGES_QUEUE) return;
  const ids = await withDb(env, (db) => q.pagesJobIds(db, succeeded));
  if (ids.length) await env.PAGES_QUEUE.sendBatch(ids.map((jobId) => ({ body: { jobId } })));
}

/** The queue's consumer: one publish per message; a failure is retried (wrangler.toml `max_retries`). */
export async function consumePages(batch: MessageBatch<{ jobId: number }>, env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    try {
      const result = await withDb(env, (db) => publishPagesJob(env, db, message.body.jobId));
      if (result.status === "failed") console.error(`pages: job ${message.body.jobId} not published: ${result.reason}`);
      message.ack();
    } catch (err) {
      console.error(`pages: job ${message.body.jobId}: ${err instanceof Error ? err.message : String(err)}`);
      message.retry({ delaySeconds: 5 });
    }
  }
}
