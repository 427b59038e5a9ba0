import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { expect } from "vitest";
import { alertManagementAlertReceipts } from "../../db/schema";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { BASE, worker } from "./client";
import type { TestProject, TestUser, World } from "./world";

export type Json = Record<string, unknown>;

export const integrationsPath = (projectId: number, rest = "") => `/projects/${projectId}/alert_management/http_integrations${rest}`;

/** A project with a maintainer and an active HTTP integration. */
export async function withIntegration(w: World, opts: { active?: boolean; settings?: Json } = {}) {
  const maintainer = await w.user();
  const project = await w.project({ visibility: "private", maintainers: [maintainer] });
  const res = await w.as(maintainer).post(integrationsPath(project.id), { json: { name: "Grafana alerts", active: opts.active ?? true } });
  expect(res.status).toBe(201);
  const integration = (await res.json()) as Json & { url: string; token: string; id: number };
  if (opts.settings) expect((await w.as(maintainer).put(`/projects/${project.id}/alert_management/settings`, { json: opts.settings })).status).toBe(200);
  return { maintainer, project, integration };
}

/** POST to the receiver URL as a monitoring tool would. */
export function notify(url: string, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  const h = new Headers({ "Content-Type": "application/json", ...headers });
  if (token !== null) h.set("Authorization", `Bearer ${token}`);
  return worker.fetch(new Request(url.replace(/^https?:\/\/[^/]+/, BASE), { method: "POST", headers: h, body: typeof body === "string" ? body : JSON.stringify(body) }));
}

/** The project's receipts not yet processed. */
export async function pendingReceipts(w: World, project: TestProject): Promise<number[]> {
  const rows = await w.db((db) =>
    db
      .select({ id: alertManagementAlertReceipts.id })
      .from(alertManagementAlertReceipts)
      .where(and(eq(alertManagementAlertReceipts.projectId, project.id), isNull(alertManagementAlertReceipts.processedAt))),
  );
  return rows.map((r) => r.id);
}

/** Runs the alerts consumer on these receipts as Miniflare would deliver them (a batch of ≤ 50). */
export async function consume(receiptIds: number[], attempts = 1) {
  const results = [];
  for (let i = 0; i < receiptIds.length; i += 50) {
    const messages = receiptIds.slice(i, i + 50).map((receiptId, k) => ({ id: `m-${receiptId}-${k}`, timestamp: new Date(), attempts, body: { receiptId } }));
    const batch = createMessageBatch("edgeforge-alerts", messages);
    const ctx = createExecutionContext();
    await queue(batch, env as unknown as Bindings, ctx);
    results.push(await getQueueResult(batch, ctx));
  }
  return results;
}

/**
 * Consumes every pending receipt of the project, and waits for those Miniflare's own queue consumer
 * holds: it runs beside the test, and ours passes its locked receipts by (SKIP LOCKED), so the first
 * pass alone can return before their alerts are committed.
 */
export async function drain(w: World, project: TestProject) {
  const results = await consume(await pendingReceipts(w, project));
  for (let i = 0; i < 100; i++) {
    const pending = await pendingReceipts(w, project);
    if (pending.length === 0) break;
    results.push(...(await consume(pending)));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return results;
}

export async function receiptRows(w: World, ids: number[]) {
  return w.db((db) => db.select().from(alertManagementAlertReceipts).where(inArray(alertManagementAlertReceipts.id, ids)));
}

export const alertsOf = async (w: World, user: TestUser, project: TestProject, query: Record<string, string | number> = {}) => {
  const res = await w.as(user).get(`/projects/${project.id}/alert_management/alerts`, { query: { per_page: 100, ...query } });
  expect(res.status).toBe(200);
  return (await res.json()) as (Json & { iid: number; events: number; status: string; issue_iid: number | null })[];
};
