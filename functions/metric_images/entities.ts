import type { issuableMetricImages } from "../../db/schema";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";

export type MetricImageRow = typeof issuableMetricImages.$inferSelect;

/** Where GitLab serves an upload of this model (`metric_image_upload_path`), absolute. */
export function metricImagePath(row: MetricImageRow): string {
  return `uploads/-/system/issuable_metric_image/file/${row.id}/${encodeURIComponent(row.fileName)}`;
}

/** Entities::IssuableMetricImage / Entities::MetricImage (lib/api/entities/metric_image.rb). */
export function metricImage(row: MetricImageRow, ctx: PresentContext) {
  return {
    id: row.id,
    created_at: isoTime(row.createdAt),
    filename: row.fileName,
    file_path: webUrl(ctx, metricImagePath(row)),
    url: row.url,
    url_text: row.urlText,
  };
}
