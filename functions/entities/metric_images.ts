import * as z from "zod";
import type { issuableMetricImages } from "../../db/schema";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";

export type MetricImageRow = typeof issuableMetricImages.$inferSelect;

/** The upload models of metric images: an incident's (`issuable_metric_image`) and an alert's. */
export type MetricImageModel = "issuable_metric_image" | "alert_management_metric_image";
type MetricImageFields = Pick<MetricImageRow, "id" | "createdAt" | "fileName" | "url" | "urlText">;

/** Where GitLab serves an upload of this model (`metric_image_upload_path`), relative to the instance. */
export function metricImagePath(row: MetricImageFields, model: MetricImageModel = "issuable_metric_image"): string {
  return `uploads/-/system/${model}/file/${row.id}/${encodeURIComponent(row.fileName)}`;
}

/** Entities::MetricImage (lib/api/entities/metric_image.rb), for either model. */
export const MetricImage = z
  .object({ id: z.int(), created_at: z.string().nullable(), filename: z.string(), file_path: z.string(), url: z.string().nullable(), url_text: z.string().nullable() })
  .meta({ id: "MetricImage" });
export function metricImageOf(model: MetricImageModel, row: MetricImageFields, ctx: PresentContext): z.output<typeof MetricImage> {
  return {
    id: row.id,
    created_at: isoTime(row.createdAt),
    filename: row.fileName,
    file_path: webUrl(ctx, metricImagePath(row, model)),
    url: row.url,
    url_text: row.urlText,
  };
}

/** Entities::IssuableMetricImage: an incident's metric image. */
export function metricImage(row: MetricImageRow, ctx: PresentContext) {
  return metricImageOf("issuable_metric_image", row, ctx);
}
