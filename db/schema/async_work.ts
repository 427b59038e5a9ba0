// Queue-backed work (docs/architecture.md, "Queues, crons and Durable Objects"): alert integrations, receipts and alerts (the
// alerts queue), and project export/import jobs (the export-import queue). GitLab's table names where
// GitLab has the table; the receipt and export-job tables are ours (GitLab keeps that state in Sidekiq).
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { issues } from "./issues";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

/** AlertManagement::HttpIntegration: one receiver endpoint with its authorization key. */
export const alertManagementHttpIntegrations = pgTable(
  "alert_management_http_integrations",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    active: boolean().notNull().default(false),
    /** 32 hex characters; the legacy integration (`/-/alerts/notify.json`) has `legacy`. */
    endpointIdentifier: text().notNull(),
    // GitLab keeps the token encrypted (attr_encrypted) and shows it to maintainers; we keep it as is
    // because the API shows it too, and compare it in constant time.
    token: text().notNull(),
    /** `payload_attribute_mapping`: our field → path in the payload (`{"title":{"path":["a","b"]}}`). */
    payloadAttributeMapping: jsonb().$type<Record<string, { path: string[]; type?: string }>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_http_integrations_on_project_and_endpoint").on(t.projectId, t.endpointIdentifier)],
);

/** One accepted request of the receiver, queued as `{ receiptId }`; `processed_at` set with its effect. */
export const alertManagementAlertReceipts = pgTable("alert_management_alert_receipts", {
  id: id(),
  projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
  integrationId: integer().references(() => alertManagementHttpIntegrations.id, { onDelete: "set null" }),
  payload: jsonb().notNull(),
  receivedAt: createdAt(),
  processedAt: timestamptz(),
});

/** AlertManagement::Alert. status: 0 triggered, 1 acknowledged, 2 resolved, 3 ignored; severity as GitLab's enum. */
export const alertManagementAlerts = pgTable(
  "alert_management_alerts",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    issueId: integer().references(() => issues.id, { onDelete: "set null" }),
    title: text().notNull(),
    description: text(),
    service: text(),
    monitoringTool: text(),
    hosts: text().array().notNull().default(sql`'{}'::text[]`),
    severity: integer().notNull().default(0),
    status: integer().notNull().default(0),
    /** SHA1 hex of the payload's fingerprint, or of the payload without start_time and hosts. */
    fingerprint: text(),
    events: integer().notNull().default(1),
    startedAt: timestamptz().notNull(),
    endedAt: timestamptz(),
    environment: text(),
    payload: jsonb().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_alert_management_alerts_on_project_id_and_iid").on(t.projectId, t.iid),
    // GitLab's index_partial_am_alerts_on_project_id_and_fingerprint: one open alert per fingerprint,
    // which makes concurrent grouping safe.
    uniqueIndex("index_partial_am_alerts_on_project_id_and_fingerprint").on(t.projectId, t.fingerprint).where(sql`status <> 2`),
    index("index_alert_management_alerts_on_project_id_and_status").on(t.projectId, t.status, t.id),
  ],
);

/** AlertManagement::MetricImage (`alert_management_alert_metric_images`): the bytes in R2. */
export const alertManagementAlertMetricImages = pgTable(
  "alert_management_alert_metric_images",
  {
    id: id(),
    alertId: integer().notNull().references(() => alertManagementAlerts.id, { onDelete: "cascade" }),
    fileName: text().notNull(),
    r2Key: text().notNull(),
    url: text(),
    urlText: text(),
    size: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_alert_management_alert_metric_images_on_alert_id").on(t.alertId)],
);

export type AlertMetricImage = typeof alertManagementAlertMetricImages.$inferSelect;

export const alertManagementAlertAssignees = pgTable(
  "alert_management_alert_assignees",
  {
    id: id(),
    alertId: integer().notNull().references(() => alertManagementAlerts.id, { onDelete: "cascade" }),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [uniqueIndex("index_alert_assignees_on_alert_and_user").on(t.alertId, t.userId)],
);

/** IncidentManagement::ProjectIncidentManagementSetting (the part alerts read). */
export const projectIncidentManagementSettings = pgTable("project_incident_management_settings", {
  projectId: integer().primaryKey().references(() => projects.id, { onDelete: "cascade" }),
  createIssue: boolean().notNull().default(false),
  autoCloseIncident: boolean().notNull().default(true),
  sendEmail: boolean().notNull().default(false),
});

/**
 * One export or import of a project (GitLab: ProjectExportJob and ProjectImportState). `kind`:
 * export | import; `status`: queued | started | finished | failed (import answers `scheduled` for queued).
 * `lease_until`: a started job whose lease passed is taken over by a redelivery.
 */
export const projectTransferJobs = pgTable(
  "project_transfer_jobs",
  {
    id: id(),
    kind: text().notNull(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    status: text().notNull().default("queued"),
    description: text(),
    uploadUrl: text(),
    uploadMethod: text(),
    /** R2 key of the archive (export: written; import: read). */
    r2Key: text(),
    error: text(),
    correlationId: text().notNull(),
    attempts: integer().notNull().default(0),
    leaseUntil: timestamptz(),
    /** Import: `override_params` and `overwrite`. */
    options: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    finishedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_project_transfer_jobs_on_project_and_kind").on(t.projectId, t.kind, t.id)],
);

/** ImportFailure: one relation that failed to import (`failed_relations`, capped at 100 when shown). */
export const importFailures = pgTable(
  "import_failures",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    jobId: integer().references(() => projectTransferJobs.id, { onDelete: "cascade" }),
    relationKey: text(),
    source: text(),
    exceptionClass: text().notNull(),
    exceptionMessage: text(),
    createdAt: createdAt(),
  },
  (t) => [index("index_import_failures_on_project_id").on(t.projectId, t.id)],
);

export type AlertIntegration = typeof alertManagementHttpIntegrations.$inferSelect;
export type Alert = typeof alertManagementAlerts.$inferSelect;
export type ProjectTransferJob = typeof projectTransferJobs.$inferSelect;

/**
 * A group export or import job (GitLab keeps this in ImportExportUpload, GroupImportState and Sidekiq):
 * the job row is the state the export-import queue consumer leases, as for projects.
 */
export const groupTransferJobs = pgTable(
  "group_transfer_jobs",
  {
    id: id(),
    kind: text().notNull(), // export | import
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    status: text().notNull(),
    /** R2 key of the archive (export: written; import: read). */
    r2Key: text(),
    error: text(),
    correlationId: text().notNull(),
    attempts: integer().notNull().default(0),
    leaseUntil: timestamptz(),
    finishedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_group_transfer_jobs_on_group_and_kind").on(t.groupId, t.kind, t.id)],
);

export type GroupTransferJob = typeof groupTransferJobs.$inferSelect;
