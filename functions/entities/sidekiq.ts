import * as z from "zod";
import { isoTime } from "../kernel/present";

/** A queue's counters (db queue_metrics) with its consumer's settings. */
export type QueueFigures = {
  queue: string;
  concurrency: number;
  deadLetter: string | null;
  enqueued: number;
  processed: number;
  failed: number;
  retried: number;
  busy: number;
  latencyMs: number;
  startedAt: Date | string | null;
};

const isDeadLetter = (q: QueueFigures, all: QueueFigures[]) => all.some((o) => o.deadLetter === q.queue);
/** Messages delivered and not yet settled: neither acknowledged nor moved to the dead-letter queue. */
const backlog = (q: QueueFigures, all: QueueFigures[]) =>
  Math.max(0, q.enqueued - q.processed - (all.find((o) => o.queue === q.deadLetter)?.enqueued ?? 0));

export const QueueMetrics = z.object({ queues: z.record(z.string(), z.object({ backlog: z.int(), latency: z.int() })) }).meta({ id: "SidekiqQueueMetrics" });
/** `GET /sidekiq/queue_metrics` (lib/api/sidekiq_metrics.rb): backlog and latency in seconds per queue. */
export function queueMetrics(all: QueueFigures[]): z.output<typeof QueueMetrics> {
  return { queues: Object.fromEntries(all.map((q) => [q.queue, { backlog: backlog(q, all), latency: Math.floor(q.latencyMs / 1000) }])) };
}

const Process = z.object({
  hostname: z.string(),
  pid: z.int().nullable(),
  tag: z.string(),
  started_at: z.string().nullable(),
  queues: z.array(z.string()),
  labels: z.array(z.string()),
  concurrency: z.int(),
  busy: z.int(),
});
export const ProcessMetrics = z.object({ processes: z.array(Process) }).meta({ id: "SidekiqProcessMetrics" });
/**
 * `GET /sidekiq/process_metrics`. Differs from GitLab: there are no Sidekiq processes; each queue
 * consumer is one "process" (hostname `queue-consumer`, no pid, tagged with its queue), its
 * concurrency the batch size, `started_at` when it first consumed a batch.
 */
export function processMetrics(all: QueueFigures[]): z.output<typeof ProcessMetrics> {
  return {
    processes: all.map((q) => ({
      hostname: "queue-consumer",
      pid: null,
      tag: q.queue,
      started_at: isoTime(q.startedAt),
      queues: [q.queue],
      labels: [],
      concurrency: q.concurrency,
      busy: q.busy,
    })),
  };
}

export const JobStats = z.object({ jobs: z.object({ processed: z.int(), failed: z.int(), enqueued: z.int(), dead: z.int() }) }).meta({ id: "SidekiqJobStats" });
/** `GET /sidekiq/job_stats`: Sidekiq::Stats' processed, failed, enqueued and dead, summed over the queues. */
export function jobStats(all: QueueFigures[]): z.output<typeof JobStats> {
  const live = all.filter((q) => !isDeadLetter(q, all));
  const sum = (qs: QueueFigures[], f: (q: QueueFigures) => number) => qs.reduce((n, q) => n + f(q), 0);
  return {
    jobs: {
      processed: sum(live, (q) => q.processed),
      failed: sum(live, (q) => q.failed),
      enqueued: sum(live, (q) => backlog(q, all)),
      dead: sum(all.filter((q) => isDeadLetter(q, all)), (q) => q.enqueued),
    },
  };
}

export const CompoundMetrics = z.object({ ...QueueMetrics.shape, ...ProcessMetrics.shape, ...JobStats.shape }).meta({ id: "SidekiqCompoundMetrics" });
export function compoundMetrics(all: QueueFigures[]): z.output<typeof CompoundMetrics> {
  return { ...queueMetrics(all), ...processMetrics(all), ...jobStats(all) };
}
