import type { Database, Executor } from "../kernel/db";
import { createSystemNotes } from "../shared/issuables/system_notes";
import * as issuesQ from "../issues/public";
import * as q from "./queries";
import { parsePayload, RESOLVED, sha1Hex, type ParsedAlert } from "./rules";
import { SEVERITIES } from "../entities/alert_management";

/**
 * AlertManagement::AlertProcessing (app/services/concerns/alert_management/alert_processing.rb), run by
 * the alerts queue consumer on a batch of receipts in one transaction: the alerts are grouped by
 * project and fingerprint and each group is applied in the order received (bump the open alert,
 * resolve it, or create a new one with its incident when the project's settings say so). The receipts
 * are marked processed in the same transaction, so a redelivered message changes nothing.
 * Returns the ids it processed (the others were already processed, or held by another consumer).
 */
export async function processReceipts(db: Database, ids: number[]): Promise<number[]> {
  return db.transaction(async (tx) => {
    const found = await q.lockReceipts(tx, ids);
    if (!found.length) return [];
    const now = new Date();
    const groups = new Map<string, { projectId: number; fingerprint: string; items: Item[] }>();
    for (const { receipt, integration, settings } of found) {
      for (const parsed of parsePayload(receipt.payload, integration?.payloadAttributeMapping ?? {}, receipt.receivedAt)) {
        const fingerprint = await sha1Hex(parsed.plainFingerprint);
        const key = `${receipt.projectId}:${fingerprint}`;
        if (!groups.has(key)) groups.set(key, { projectId: receipt.projectId, fingerprint, items: [] });
        groups.get(key)!.items.push({
          parsed,
          source: parsed.monitoringTool ?? integration?.name ?? "Generic Alert Endpoint",
          createIssue: settings?.createIssue ?? false,
          autoClose: settings?.autoCloseIncident ?? true,
        });
      }
    }
    const botId = groups.size ? await q.alertBotId(tx) : 0;
    // Groups in order of arrival, so that new alerts take their iids in that order. Two consumers
    // locking the same alerts in another order is a deadlock Postgres breaks: that batch retries.
    for (const key of groups.keys()) {
      const g = groups.get(key)!;
      await processGroup(tx, g.projectId, g.fingerprint, g.items, botId, now);
    }
    const processed = found.map((f) => f.receipt.id);
    await q.markReceiptsProcessed(tx, processed, now);
    return processed;
  });
}

type Item = { parsed: ParsedAlert; source: string; createIssue: boolean; autoClose: boolean };
type OpenAlert = { id: number; projectId: number; issueId: number | null };

async function processGroup(tx: Executor, projectId: number, fingerprint: string, items: Item[], botId: number, now: Date) {
  let open: OpenAlert | null = await q.lockOpenAlert(tx, projectId, fingerprint);
  let bumps = 0;
  const flush = async () => {
    if (open && bumps) await q.bumpEvents(tx, open.id, bumps, now);
    bumps = 0;
  };
  for (const item of items) {
    if (open && !item.parsed.resolving) {
      // `register_new_event!`, counted and written once per run of events.
      bumps++;
    } else if (open) {
      await flush();
      await resolve(tx, open, item, botId, now);
      open = null;
    } else if (!item.parsed.resolving) {
      // `process_new_alert`; a recovery for an alert we do not have open is dropped, and a resolved
      // alert is never regrouped: the next firing creates a new alert.
      const created = await create(tx, projectId, fingerprint, item, botId, now);
      if (created) open = created;
      else {
        // Another consumer created it between our read and our insert: that one is open now.
        open = await q.lockOpenAlert(tx, projectId, fingerprint);
        if (open) bumps++;
      }
    }
  }
  await flush();
}

async function create(tx: Executor, projectId: number, fingerprint: string, item: Item, botId: number, now: Date): Promise<OpenAlert | null> {
  const { parsed } = item;
  const created = await q.insertAlert(tx, {
    projectId,
    title: parsed.title.slice(0, 200),
    description: parsed.description?.slice(0, 1000) ?? null,
    service: parsed.service?.slice(0, 100) ?? null,
    monitoringTool: parsed.monitoringTool?.slice(0, 100) ?? null,
    hosts: parsed.hosts,
    severity: parsed.severity,
    fingerprint,
    startedAt: parsed.startedAt,
    environment: parsed.environment,
    payload: parsed.payload,
    createdAt: now,
    updatedAt: now,
  });
  if (!created) return null;
  const notes = [`logged an alert from **${item.source}**`];
  let issueId: number | null = null;
  if (item.createIssue) {
    issueId = await createIncident(tx, created, botId, now);
    const issue = await q.issueState(tx, issueId);
    await q.setAlert(tx, created.id, { issueId });
    // SystemNotes::AlertManagementService#new_alert_issue
    notes.push(`created incident #${issue!.iid} for this alert`);
  }
  await createSystemNotes(tx, { noteableType: "AlertManagement::Alert", noteableId: created.id, projectId, authorId: botId, bodies: notes, now });
  return { id: created.id, projectId, issueId };
}

async function resolve(tx: Executor, alert: OpenAlert, item: Item, botId: number, now: Date) {
  await q.setAlert(tx, alert.id, { status: RESOLVED, endedAt: item.parsed.endedAt ?? now, updatedAt: now });
  await createSystemNotes(tx, {
    noteableType: "AlertManagement::Alert",
    noteableId: alert.id,
    projectId: alert.projectId,
    authorId: botId,
    bodies: [`logged a recovery alert from **${item.source}**`, "changed the status to **Resolved**"],
    now,
  });
  if (!item.autoClose || !alert.issueId) return;
  const issue = await q.issueState(tx, alert.issueId);
  if (!issue || issue.state !== "opened") return;
  // `close_issue`: Issues::CloseService as the alert bot, through the issues domain's one writer.
  const effects = issuesQ.noEffects();
  effects.stateEvent = "closed";
  effects.openIssuesDelta = -1;
  await issuesQ.updateIssue(tx, issue, { state: "closed", closedAt: now, closedById: botId, updatedAt: now }, effects, botId, now);
}

/** IncidentManagement::CreateIncidentForAlertService: an issue of type incident, by the alert bot. */
async function createIncident(tx: Executor, alert: NonNullable<Awaited<ReturnType<typeof q.insertAlert>>>, botId: number, now: Date): Promise<number> {
  return issuesQ.insertIssue(
    tx,
    {
      projectId: alert.projectId,
      iid: null,
      title: alert.title,
      description: incidentDescription(alert),
      confidential: false,
      authorId: botId,
      milestoneId: null,
      dueDate: null,
      weight: null,
      issueType: "incident",
      discussionLocked: null,
      createdAt: now,
      updatedAt: now,
    },
    { ...issuesQ.noEffects(), openIssuesDelta: 1 },
    now,
  );
}

/** AlertManagement::AlertPresenter#issue_description (its summary table). */
function incidentDescription(a: { startedAt: Date; severity: number; service: string | null; monitoringTool: string | null; hosts: string[]; description: string | null; environment: string | null }): string {
  const lines = [`**Start time:** ${a.startedAt.toISOString()}`, `**Severity:** ${SEVERITIES[a.severity]}`];
  if (a.environment) lines.push(`**Environment:** ${a.environment}`);
  if (a.service) lines.push(`**Service:** ${a.service}`);
  if (a.monitoringTool) lines.push(`**Monitoring tool:** ${a.monitoringTool}`);
  if (a.hosts.length) lines.push(`**Hosts:** ${a.hosts.join(" ")}`);
  if (a.description) lines.push(`**Description:** ${a.description}`);
  return lines.join("  \n");
}
