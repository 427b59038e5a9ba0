import { eq } from "drizzle-orm";
import { issuableMetricImages, issues } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** An image with the project and iid of its issue, for the upload route (which knows only the image id). */
export async function findImageOwner(db: Executor, imageId: number) {
  const rows = await db
    .select({ image: issuableMetricImages, projectId: issues.projectId, issueIid: issues.iid })
    .from(issuableMetricImages)
    .innerJoin(issues, eq(issues.id, issuableMetricImages.issueId))
    .where(eq(issuableMetricImages.id, imageId))
    .limit(1);
  return rows[0] ?? null;
}
