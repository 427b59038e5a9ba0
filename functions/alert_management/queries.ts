import { and, asc, desc, eq, ilike, inArray, ne, or, sql, type SQL } from "drizzle-orm";
import {
  alertManagementAlertAssignees,
  alertManagementAlertMetricImages,
  alertManagementAlertReceipts,
  alertManagementAlerts,
  alertManagementHttpIntegrations,
  issues,
  projectIncidentManagementSettings,
  projects,
  users,
  type Alert,
  type AlertIntegration,
} from "../../db/schema";
import type { Executor } from "../kernel/db";
import { cappedCount, type Page } from "../kernel/pagination";
import { nextIid } from "../shared/issuables/iids";
import { RESOLVED } from "./rules";
import type { AlertRow } from "../entities/alert_management";

/** Every statement of alert management: integrations, receipts, alerts, incident settings. */

export async function listIntegrations(db: Executor, projectId: number): Promise<AlertIntegration[]> {
  return db.select().from(alertManagementHttpIntegrations).where(eq(alertManagementHttpIntegrations.projectId, projectId)).orderBy(alertManagementHttpIntegrations.id);
}

export async function findIntegration(db: Executor, projectId: number, id: number): Promise<AlertIntegration | null> {
  const rows = await db
    .select()
    .from(alertManagementHttpIntegrations)
    .where(and(eq(alertManagementHttpIntegrations.projectId, projectId), eq(alertManagementHttpIntegrations.id, id)));
  return rows[0] ?? null;
}

export type IntegrationValues = Pick<AlertIntegration, "name" | "active" | "payloadAttributeMapping">;

export async function insertIntegration(db: Executor, projectId: number, v: IntegrationValues & { endpointIdentifier: string; token: string }): Promise<AlertIntegration> {
  const [row] = await db.insert(alertManagementHttpIntegrations).values({ projectId, ...v }).returning();
  return row;
}

export async function updateIntegration(db: Executor, id: number, v: Partial<IntegrationValues & { token: string }>): Promise<AlertIntegration> {
  const [row] = await db
    .update(alertManagementHttpIntegrations)
    .set({ ...v, updatedAt: new Date() })
    .where(eq(alertManagementHttpIntegrations.id, id))
    .returning();
  return row;
}

export async function deleteIntegration(db: Executor, id: number): Promise<void> {
  await db.delete(alertManagementHttpIntegrations).where(eq(alertManagementHttpIntegrations.id, id));
}

/** The receiver's target: the project by full path (case-insensitive) and its integration with that endpoint. */
export async function findReceiverTarget(db: Executor, fullPath: string, endpoint: string) {
  const rows = await db
    .select({ projectId: projects.id, integration: alertManagementHttpIntegrations })
    .from(projects)
    .leftJoin(
      alertManagementHttpIntegrations,
      and(eq(alertManagementHttpIntegrations.projectId, projects.id), eq(alertManagementHttpIntegrations.endpointIdentifier, endpoint)),
    )
    .where(sql`lower(${projects.fullPath}) = lower(${fullPath})`)
    .limit(1);
  return rows[0] ?? null;
}

export async function insertReceipt(db: Executor, projectId: number, integrationId: number, payload: unknown): Promise<number> {
  const [row] = await db
    .insert(alertManagementAlertReceipts)
    .values({ projectId, integrationId, payload })
    .returning({ id: alertManagementAlertReceipts.id });
  return row.id;
}

/**
 * The unprocessed receipts among `ids`, locked for this transaction, oldest first. Receipts another
 * consumer holds are skipped: that consumer's own message for them is acked or retried with its work.
 */
export async function lockReceipts(tx: Executor, ids: number[]) {
  return tx
    .select({ receipt: alertManagementAlertReceipts, integration: alertManagementHttpIntegrations, settings: projectIncidentManagementSettings })
    .from(alertManagementAlertReceipts)
    .leftJoin(alertManagementHttpIntegrations, eq(alertManagementHttpIntegrations.id, alertManagementAlertReceipts.integrationId))
    .leftJoin(projectIncidentManagementSettings, eq(projectIncidentManagementSettings.projectId, alertManagementAlertReceipts.projectId))
    .where(and(inArray(alertManagementAlertReceipts.id, ids), sql`${alertManagementAlertReceipts.processedAt} IS NULL`))
    .orderBy(alertManagementAlertReceipts.id)
    .for("update", { of: alertManagementAlertReceipts, skipLocked: true });
}

export async function markReceiptsProcessed(tx: Executor, ids: number[], now: Date): Promise<void> {
  if (ids.length) await tx.update(alertManagementAlertReceipts).set({ processedAt: now }).where(inArray(alertManagementAlertReceipts.id, ids));
}

/** The open (not resolved) alert of a fingerprint, locked. */
export async function lockOpenAlert(tx: Executor, projectId: number, fingerprint: string): Promise<Alert | null> {
  const rows = await tx
    .select()
    .from(alertManagementAlerts)
    .where(and(eq(alertManagementAlerts.projectId, projectId), eq(alertManagementAlerts.fingerprint, fingerprint), ne(alertManagementAlerts.status, RESOLVED)))
    .for("update");
  return rows[0] ?? null;
}

export async function bumpEvents(tx: Executor, id: number, by: number, now: Date): Promise<void> {
  await tx
    .update(alertManagementAlerts)
    .set({ events: sql`${alertManagementAlerts.events} + ${by}::int`, updatedAt: now })
    .where(eq(alertManagementAlerts.id, id));
}

export type NewAlert = Omit<typeof alertManagementAlerts.$inferInsert, "iid" | "id">;

/**
 * Inserts a new open alert unless one with the fingerprint appeared meanwhile (the partial unique
 * index decides between concurrent consumers): null then, and the caller bumps that one instead.
 */
export async function insertAlert(tx: Executor, v: NewAlert): Promise<Alert | null> {
  const iid = await nextIid(tx, "alert_management_alerts", { projectId: v.projectId });
  const rows = await tx
    .insert(alertManagementAlerts)
    .values({ ...v, iid })
    .onConflictDoNothing({ target: [alertManagementAlerts.projectId, alertManagementAlerts.fingerprint], where: sql`status <> 2` })
    .returning();
  return rows[0] ?? null;
}

export async function setAlert(tx: Executor, id: number, changes: Partial<Alert>): Promise<Alert> {
  const [row] = await tx.update(alertManagementAlerts).set(changes).where(eq(alertManagementAlerts.id, id)).returning();
  return row;
}

/** User.alert_bot: found, or created on first use (GitLab seeds it the same way, lazily). */
export async function alertBotId(tx: Executor): Promise<number> {
  const found = await tx.select({ id: users.id }).from(users).where(eq(users.userType, "alert_bot")).limit(1);
  if (found[0]) return found[0].id;
  const inserted = await tx
    .insert(users)
    .values({ username: "alert-bot", name: "GitLab Alert Bot", email: "alert-bot@noreply.edgeforge.invalid", userType: "alert_bot", confirmedAt: new Date() })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (inserted[0]) return inserted[0].id;
  const again = await tx.select({ id: users.id }).from(users).where(eq(users.userType, "alert_bot")).limit(1);
  return again[0].id;
}

export async function issueState(tx: Executor, issueId: number) {
  const rows = await tx.select({ id: issues.id, iid: issues.iid, projectId: issues.projectId, state: issues.state }).from(issues).where(eq(issues.id, issueId));
  return rows[0] ?? null;
}

export async function loadSettings(db: Executor, projectId: number) {
  const rows = await db.select().from(projectIncidentManagementSettings).where(eq(projectIncidentManagementSettings.projectId, projectId));
  return rows[0] ?? { projectId, createIssue: false, autoCloseIncident: true, sendEmail: false };
}

export async function saveSettings(db: Executor, projectId: number, v: { createIssue?: boolean; autoCloseIncident?: boolean; sendEmail?: boolean }) {
  const [row] = await db
    .insert(projectIncidentManagementSettings)
    .values({ projectId, ...v })
    .onConflictDoUpdate({ target: projectIncidentManagementSettings.projectId, set: v })
    .returning();
  return row;
}


function alertRows(db: Executor, where: SQL) {
  return db
    .select({
      alert: alertManagementAlerts,
      issueIid: issues.iid,
      assignees: sql<AlertRow["assignees"]>`COALESCE((SELECT json_agg(json_build_object('id', u.id, 'username', u.username, 'name', u.name, 'state', u.state, 'avatarUrl', u.avatar_url) ORDER BY a.id)
        FROM ${alertManagementAlertAssignees} a JOIN ${users} u ON u.id = a.user_id WHERE a.alert_id = ${alertManagementAlerts.id}), '[]'::json)`,
    })
    .from(alertManagementAlerts)
    .leftJoin(issues, eq(issues.id, alertManagementAlerts.issueId))
    .where(where);
}

const toRow = (r: { alert: Alert; issueIid: number | null; assignees: AlertRow["assignees"] }): AlertRow => ({ ...r.alert, issueIid: r.issueIid, assignees: r.assignees });

export async function listAlerts(db: Executor, projectId: number, f: { statuses: number[] | null; search: string | null }, page: Page) {
  const conds: SQL[] = [eq(alertManagementAlerts.projectId, projectId)];
  if (f.statuses) conds.push(inArray(alertManagementAlerts.status, f.statuses));
  if (f.search) {
    const like = `%${f.search.replace(/[\\%_]/g, "\\$&")}%`;
    conds.push(or(ilike(alertManagementAlerts.title, like), ilike(alertManagementAlerts.description, like), ilike(alertManagementAlerts.service, like), ilike(alertManagementAlerts.monitoringTool, like))!);
  }
  const where = and(...conds)!;
  const [rows, total] = await Promise.all([
    alertRows(db, where).orderBy(desc(alertManagementAlerts.id)).limit(page.limit).offset(page.offset),
    cappedCount(db, db.select({ id: alertManagementAlerts.id }).from(alertManagementAlerts).where(where), page),
  ]);
  return { rows: rows.map(toRow), total };
}

export async function findAlert(db: Executor, projectId: number, iid: number): Promise<AlertRow | null> {
  const rows = await alertRows(db, and(eq(alertManagementAlerts.projectId, projectId), eq(alertManagementAlerts.iid, iid))!);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function replaceAssignees(tx: Executor, alertId: number, userIds: number[]): Promise<number[]> {
  const before = await tx.select({ userId: alertManagementAlertAssignees.userId }).from(alertManagementAlertAssignees).where(eq(alertManagementAlertAssignees.alertId, alertId));
  await tx.delete(alertManagementAlertAssignees).where(eq(alertManagementAlertAssignees.alertId, alertId));
  if (userIds.length) await tx.insert(alertManagementAlertAssignees).values(userIds.map((userId) => ({ alertId, userId })));
  return before.map((b) => b.userId);
}

/** Users among `ids` who are active and project members with at least `level` (alert assignees). */
export async function membersAmong(db: Executor, projectId: number, ids: number[], level: number): Promise<{ id: number; username: string }[]> {
  if (!ids.length) return [];
  const result = await db.execute<{ id: number; username: string }>(sql`
    SELECT u.id, u.username FROM users u WHERE u.id = ANY(${sql.param(ids)}::int[]) AND u.state = 'active'
      AND (SELECT max(m.access_level) FROM members m WHERE m.user_id = u.id AND ((m.source_type = 'Project' AND m.source_id = ${projectId})
        OR (m.source_type = 'Namespace' AND m.source_id = ANY((SELECT n.traversal_ids FROM namespaces n JOIN projects p ON p.namespace_id = n.id WHERE p.id = ${projectId})::int[])))) >= ${level}`);
  return result.rows.map((r) => ({ id: Number(r.id), username: r.username }));
}

// ---------------------------------------------------------------------------------------------
// Metric images of alerts (AlertManagement::MetricImage)

export type { AlertMetricImage } from "../../db/schema";

/** An image with its alert's project, for the upload path (which knows only the image id). */
export async function findAlertImageOwner(db: Executor, imageId: number) {
  const rows = await db
    .select({ image: alertManagementAlertMetricImages, projectId: alertManagementAlerts.projectId })
    .from(alertManagementAlertMetricImages)
    .innerJoin(alertManagementAlerts, eq(alertManagementAlerts.id, alertManagementAlertMetricImages.alertId))
    .where(eq(alertManagementAlertMetricImages.id, imageId))
    .limit(1);
  return rows[0] ?? null;
}
