import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { router } from "../kernel/router";
import { CompoundMetrics, JobStats, ProcessMetrics, QueueMetrics, compoundMetrics, jobStats, processMetrics, queueMetrics, type QueueFigures } from "../entities/sidekiq";
import { QUEUE_CONSUMERS } from "../shared/queue_metrics";
import * as q from "./queries";

/**
 * Background-work metrics (lib/api/sidekiq_metrics.rb): administrators only. Differs from GitLab:
 * answered from the queue consumers' own counters (shared/queue_metrics.ts) for the queues of
 * wrangler.toml, not from Sidekiq's Redis.
 */
export const sidekiqRoutes = router();

/** Every consumer's figures, zero for a queue that has consumed nothing yet. */
async function figures(c: Ctx): Promise<QueueFigures[]> {
  requireAdmin(c);
  const rows = await q.allQueueMetrics(c.var.db());
  return QUEUE_CONSUMERS.map((consumer) => {
    const row = rows.find((r) => r.queue === consumer.queue);
    return {
      ...consumer,
      enqueued: row?.enqueued ?? 0,
      processed: row?.processed ?? 0,
      failed: row?.failed ?? 0,
      retried: row?.retried ?? 0,
      busy: row?.busy ?? 0,
      latencyMs: row?.latencyMs ?? 0,
      startedAt: row?.startedAt ?? null,
    };
  });
}

/** GET /sidekiq/queue_metrics */
sidekiqRoutes.get("/sidekiq/queue_metrics", { response: QueueMetrics }, async (c) => c.json(queueMetrics(await figures(c))));

/** GET /sidekiq/process_metrics */
sidekiqRoutes.get("/sidekiq/process_metrics", { response: ProcessMetrics }, async (c) => c.json(processMetrics(await figures(c))));

/** GET /sidekiq/job_stats */
sidekiqRoutes.get("/sidekiq/job_stats", { response: JobStats }, async (c) => c.json(jobStats(await figures(c))));

/** GET /sidekiq/compound_metrics */
sidekiqRoutes.get("/sidekiq/compound_metrics", { response: CompoundMetrics }, async (c) => c.json(compoundMetrics(await figures(c))));
