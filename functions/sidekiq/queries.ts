import { asc } from "drizzle-orm";
import { queueMetrics, type QueueMetric } from "../../db/schema";
import type { Executor } from "../kernel/db";

export type { QueueMetric };

export async function allQueueMetrics(db: Executor): Promise<QueueMetric[]> {
  return db.select().from(queueMetrics).orderBy(asc(queueMetrics.queue));
}
