import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import type { Json } from "../helpers/api";

type Compound = {
  queues: Record<string, { backlog: number; latency: number }>;
  processes: { tag: string; busy: number; concurrency: number; queues: string[]; started_at: string | null }[];
  jobs: { processed: number; failed: number; enqueued: number; dead: number };
};

/** Dead-lettered alert receipts: the consumer logs and acknowledges them. */
async function consumeDead(count: number) {
  const sent = new Date(Date.now() - 5000);
  const batch = createMessageBatch(
    "edgeforge-alerts-dlq",
    Array.from({ length: count }, (_, i) => ({ id: `dead-${Date.now()}-${i}`, timestamp: sent, attempts: 1, body: { receiptId: -1 } })),
  );
  const ctx = createExecutionContext();
  await queue(batch, env as unknown as Bindings, ctx);
  return getQueueResult(batch, ctx);
}

describe("GET /sidekiq/compound_metrics", () => {
  it("answers the consumers' own counters, named after the queues", async () => {
    const w = await world();
    const before = (await (await w.root.get("/sidekiq/compound_metrics")).json()) as Compound;
    expect(Object.keys(before.queues).sort()).toEqual(["edgeforge-alerts", "edgeforge-alerts-dlq", "edgeforge-exports", "edgeforge-exports-dlq", "edgeforge-mirrors", "edgeforge-registry", "edgeforge-webhooks"]);
    const result = await consumeDead(3);
    expect(result.explicitAcks.length).toBe(3);
    const res = await w.root.get("/sidekiq/compound_metrics");
    expect(res.status).toBe(200);
    const after = (await res.json()) as Compound;
    expect(after.jobs.dead).toBeGreaterThanOrEqual(before.jobs.dead + 3);
    expect(after.queues["edgeforge-alerts-dlq"].latency).toBeGreaterThanOrEqual(0);
    const dlq = after.processes.find((p) => p.tag === "edgeforge-alerts-dlq")!;
    expect(dlq).toMatchObject({ queues: ["edgeforge-alerts-dlq"], concurrency: 50, labels: [], hostname: "queue-consumer", pid: null });
    expect(dlq.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe("GET /sidekiq/queue_metrics, process_metrics, job_stats", () => {
  it("answers GitLab's shapes", async () => {
    const w = await world();
    const queues = (await (await w.root.get("/sidekiq/queue_metrics")).json()) as Json;
    expect(Object.keys(queues)).toEqual(["queues"]);
    expect((queues.queues as Json)["edgeforge-webhooks"]).toEqual({ backlog: expect.any(Number), latency: expect.any(Number) });
    const processes = (await (await w.root.get("/sidekiq/process_metrics")).json()) as Json;
    expect(Object.keys(processes)).toEqual(["processes"]);
    const jobs = (await (await w.root.get("/sidekiq/job_stats")).json()) as Json;
    expect(Object.keys(jobs.jobs as Json).sort()).toEqual(["dead", "enqueued", "failed", "processed"]);
  });

  it("is for administrators: 401 anonymous, 403 users", async () => {
    const w = await world();
    for (const path of ["/sidekiq/queue_metrics", "/sidekiq/process_metrics", "/sidekiq/job_stats", "/sidekiq/compound_metrics"]) {
      expect(await statusAndBody(await w.anonymous.get(path))).toEqual([401, { message: "401 Unauthorized" }]);
      expect(await statusAndBody(await w.as(w.stranger).get(path))).toEqual([403, { message: "403 Forbidden" }]);
    }
  });
});
