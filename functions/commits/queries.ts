import { and, desc, eq, notInArray } from "drizzle-orm";
import { ciPipelines, type CiPipeline } from "../../db/schema";
import type { Executor } from "../kernel/db";

/**
 * `Commit#last_pipeline`: the newest pipeline of the project on the commit, whatever its ref, among
 * `ci_sources` (child pipelines and the other dangling sources left out); 1 statement.
 */
export async function lastPipeline(db: Executor, projectId: number, sha: string): Promise<CiPipeline | null> {
  const [row] = await db
    .select()
    .from(ciPipelines)
    .where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.sha, sha), notInArray(ciPipelines.source, ["parent_pipeline", "webide", "ondemand_dast_scan", "ondemand_dast_validation"])))
    .orderBy(desc(ciPipelines.id))
    .limit(1);
  return row ?? null;
}
