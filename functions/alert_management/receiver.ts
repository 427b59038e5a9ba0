import { Hono } from "hono";
import type { AppEnv, Ctx } from "../kernel/env";
import { rejectMalformedBody } from "../kernel/params";
import * as q from "./queries";
import { depthOf, MAX_PAYLOAD_BYTES, sameToken } from "./rules";

/**
 * The alert receiver (Projects::Alerting::NotificationsController, NotifyService), outside /api/v4:
 * `POST /<full_path>/-/alerts/notify/<name>/<endpoint>.json` and the legacy `/-/alerts/notify.json`,
 * authenticated by the integration's key (`Authorization: Bearer <key>`, compared in constant time).
 * GitLab's order: 400 past the payload limits, 403 for a missing or inactive integration, 401 for a
 * missing or wrong key; every answer has an empty body (`head`). The accepted payload is stored as a
 * receipt and queued; the alerts consumer does the work.
 * Differs from GitLab: the answer is `200` with an empty body, since the alert does not exist yet
 * (GitLab 15 renders the processed alerts).
 */
export const alertReceiverRoutes = new Hono<AppEnv>();

const empty = (c: Ctx, status: 200 | 400 | 401 | 403 | 404) => c.body(null, status);

async function receive(c: Ctx, fullPath: string, endpoint: string) {
  const db = c.var.db();
  const target = await q.findReceiverTarget(db, fullPath, endpoint);
  if (!target) return empty(c, 404);
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length > MAX_PAYLOAD_BYTES) return empty(c, 400);
  let payload: unknown;
  try {
    payload = bytes.length ? JSON.parse(new TextDecoder().decode(bytes)) : {};
  } catch {
    return empty(c, 400);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload) || depthOf(payload) > 100) return empty(c, 400);
  // A NUL in any string: 400 (a jsonb column refuses `\u0000`).
  rejectMalformedBody(payload);
  const integration = target.integration;
  if (!integration?.active) return empty(c, 403);
  const header = c.req.header("authorization") ?? "";
  const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? "";
  if (!token || !sameToken(token, integration.token)) return empty(c, 401);
  const receiptId = await q.insertReceipt(db, target.projectId, integration.id, payload);
  await c.env.ALERTS_QUEUE.send({ receiptId });
  return empty(c, 200);
}

alertReceiverRoutes.post("/:project{.+}/-/alerts/notify/:name/:endpoint{[0-9A-Za-z]+\\.json}", (c) =>
  receive(c, c.req.param("project"), c.req.param("endpoint").replace(/\.json$/, "")),
);

alertReceiverRoutes.post("/:project{.+}/-/alerts/notify.json", (c) => receive(c, c.req.param("project"), "legacy"));
