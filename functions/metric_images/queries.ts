import { and, asc, eq } from "drizzle-orm";
import { issuableMetricImages, issues } from "../../db/schema";
import type { Executor } from "../kernel/db";

/** `issue.metric_images.order_created_at_asc`. */
export function listMetricImages(db: Executor, issueId: number) {
  return db
    .select()
    .from(issuableMetricImages)
    .where(eq(issuableMetricImages.issueId, issueId))
    .orderBy(asc(issuableMetricImages.createdAt), asc(issuableMetricImages.id));
}

/** `issue.metric_images.find_by_id(id)`: always through the issue. */
export async function findMetricImage(db: Executor, issueId: number, imageId: number) {
  const rows = await db
    .select()
    .from(issuableMetricImages)
    .where(and(eq(issuableMetricImages.issueId, issueId), eq(issuableMetricImages.id, imageId)))
    .limit(1);
  return rows[0] ?? null;
}

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
