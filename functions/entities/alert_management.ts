import * as z from "zod";
import type { Alert, AlertIntegration, AlertMetricImage } from "../../db/schema";
import { MetricImage, metricImageOf, metricImagePath } from "./metric_images";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";

/** AlertManagement::Alert severities and statuses, GitLab's enum values (the stored integer indexes them). */
export const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export const STATUSES = ["triggered", "acknowledged", "resolved", "ignored"] as const;

/** An alert with its incident's iid and its assignees, as the alert presenter reads it. */
export type AlertRow = Alert & { issueIid: number | null; assignees: { id: number; username: string; name: string; state: string; avatarUrl: string | null }[] };

/**
 * JSON of alert management, our REST extension: GitLab manages integrations and reads alerts through
 * GraphQL (`AlertManagementHttpIntegration`, `AlertManagementAlert`); these carry the same fields in
 * REST's snake_case.
 */

/** Gitlab::Utils.slugify of the name (`http-endpoint` when it slugs to nothing), as the URL's `name`. */
export function nameSlug(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");
  return slug || "http-endpoint";
}

export function integrationUrl(ctx: PresentContext, fullPath: string, row: Pick<AlertIntegration, "name" | "endpointIdentifier">): string {
  if (row.endpointIdentifier === "legacy") return webUrl(ctx, `${fullPath}/-/alerts/notify.json`);
  return webUrl(ctx, `${fullPath}/-/alerts/notify/${nameSlug(row.name)}/${row.endpointIdentifier}.json`);
}

export const AlertHttpIntegration = z
  .object({
    id: z.int(),
    name: z.string(),
    active: z.boolean(),
    type: z.literal("http"),
    url: z.string(),
    token: z.string(),
    payload_attribute_mappings: z.array(z.object({ field_name: z.string(), path: z.array(z.string()), type: z.string() })),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "AlertHttpIntegration" });
export function httpIntegration(row: AlertIntegration, ctx: PresentContext & { fullPath: string }): z.output<typeof AlertHttpIntegration> {
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    type: "http",
    url: integrationUrl(ctx, ctx.fullPath, row),
    token: row.token,
    payload_attribute_mappings: Object.entries(row.payloadAttributeMapping).map(([field, m]) => ({
      field_name: field,
      path: m.path,
      type: m.type ?? "string",
    })),
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  };
}

export const AlertEntity = z
  .object({
    id: z.int(),
    iid: z.int(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(STATUSES),
    severity: z.enum(SEVERITIES),
    events: z.int(),
    fingerprint: z.string().nullable(),
    service: z.string().nullable(),
    monitoring_tool: z.string().nullable(),
    hosts: z.array(z.string()),
    environment: z.string().nullable(),
    started_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    issue_iid: z.int().nullable(),
    assignees: z.array(z.object({ id: z.int(), username: z.string(), name: z.string(), state: z.string(), avatar_url: z.string().nullable(), web_url: z.string() })),
    details: z.unknown(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    web_url: z.string(),
  })
  .meta({ id: "Alert" });
export function alert(row: AlertRow, ctx: PresentContext & { fullPath: string }): z.output<typeof AlertEntity> {
  return {
    id: row.id,
    iid: row.iid,
    title: row.title,
    description: row.description,
    status: STATUSES[row.status],
    severity: SEVERITIES[row.severity],
    events: row.events,
    fingerprint: row.fingerprint,
    service: row.service,
    monitoring_tool: row.monitoringTool,
    hosts: row.hosts,
    environment: row.environment,
    started_at: isoTime(row.startedAt),
    ended_at: isoTime(row.endedAt),
    issue_iid: row.issueIid,
    assignees: row.assignees.map((u) => ({
      id: u.id,
      username: u.username,
      name: u.name,
      state: u.state,
      avatar_url: u.avatarUrl,
      web_url: webUrl(ctx, u.username),
    })),
    details: row.payload,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    web_url: webUrl(ctx, `${ctx.fullPath}/-/alert_management/${row.iid}/details`),
  };
}

export const IncidentSettings = z
  .object({ create_issue: z.boolean(), auto_close_incident: z.boolean(), send_email: z.boolean() })
  .meta({ id: "IncidentSettings" });
export function incidentSettings(row: { createIssue: boolean; autoCloseIncident: boolean; sendEmail: boolean }): z.output<typeof IncidentSettings> {
  return { create_issue: row.createIssue, auto_close_incident: row.autoCloseIncident, send_email: row.sendEmail };
}

/** Where GitLab serves an alert's metric image (`alert_metric_image_upload_path`, model `alert_management_metric_image`). */
export function alertMetricImagePath(row: AlertMetricImage): string {
  return metricImagePath(row, "alert_management_metric_image");
}

/** Entities::MetricImage (lib/api/entities/metric_image.rb) of an alert. */
export function alertMetricImage(row: AlertMetricImage, ctx: PresentContext): z.output<typeof MetricImage> {
  return metricImageOf("alert_management_metric_image", row, ctx);
}
