import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { issues, notes, todos } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { alertsOf, consume, drain, integrationsPath, notify, pendingReceipts, receiptRows, withIntegration } from "../helpers/alerts";

/** A real Alertmanager webhook body (version 4), one firing alert. */
function alertmanager(status: "firing" | "resolved", overrides: Record<string, unknown> = {}) {
  return {
    receiver: "gitlab",
    status,
    alerts: [
      {
        status,
        labels: { alertname: "HighErrorRate", severity: "Warning", instance: "web-1:9100", gitlab_environment_name: "production" },
        annotations: { summary: "Error rate above 5%", description: "5xx ratio is 7.2% on web-1" },
        startsAt: "2026-11-25T10:00:00.000Z",
        endsAt: status === "resolved" ? "2026-11-25T10:30:00.000Z" : "0001-01-01T00:00:00Z",
        generatorURL: "http://prometheus:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29+%3E+0.05&g0.tab=1",
        fingerprint: "c2b6ad4e3a1f0e52",
        ...overrides,
      },
    ],
    groupLabels: { alertname: "HighErrorRate" },
    commonLabels: { alertname: "HighErrorRate" },
    commonAnnotations: {},
    externalURL: "http://alertmanager:9093",
    version: "4",
    groupKey: '{}:{alertname="HighErrorRate"}',
    truncatedAlerts: 0,
  };
}

describe("POST /<full_path>/-/alerts/notify/<name>/<endpoint>.json", () => {
  it("accepts a payload with the key: 200, empty body, a queued receipt", async () => {
    const w = await world();
    const { project, integration } = await withIntegration(w);
    const res = await notify(integration.url, integration.token, { title: "Disk full", fingerprint: "disk-1" });
    expect(await statusAndBody(res)).toEqual([200, ""]);
    expect((await pendingReceipts(w, project)).length).toBe(1);
  });

  it("answers in GitLab's order: 400 too large, 403 inactive, 401 missing or wrong key; nothing is stored", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    const big = { title: "x", blob: "y".repeat(1024 * 1024) };
    expect(await statusAndBody(await notify(integration.url, "wrong", big))).toEqual([400, ""]);
    expect(await statusAndBody(await notify(integration.url, integration.token, "{not json"))).toEqual([400, ""]);
    expect(await statusAndBody(await notify(integration.url, null, {}))).toEqual([401, ""]);
    expect(await statusAndBody(await notify(integration.url, `${integration.token}x`, {}))).toEqual([401, ""]);
    expect(await statusAndBody(await notify(integration.url, null, {}, { Authorization: `Basic ${btoa(`x:${integration.token}`)}` }))).toEqual([401, ""]);
    await w.as(maintainer).put(integrationsPath(project.id, `/${integration.id}`), { json: { active: false } });
    expect(await statusAndBody(await notify(integration.url, "wrong", {}))).toEqual([403, ""]);
    expect(await statusAndBody(await notify(integration.url.replace(/[0-9a-f]{32}\.json$/, "0".repeat(32) + ".json"), integration.token, {}))).toEqual([403, ""]);
    expect(await pendingReceipts(w, project)).toEqual([]);
  });

  it("a reset key replaces the old one", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    const reset = (await (await w.as(maintainer).post(integrationsPath(project.id, `/${integration.id}/reset_token`))).json()) as { token: string };
    expect((await notify(integration.url, integration.token, {})).status).toBe(401);
    expect((await notify(integration.url, reset.token, {})).status).toBe(200);
  });

  it("answers 404 for an unknown project and 403 on the legacy URL without a legacy integration", async () => {
    const w = await world();
    const { project, integration } = await withIntegration(w);
    expect((await notify(integration.url.replace(project.fullPath, `${project.fullPath}-nope`), integration.token, {})).status).toBe(404);
    expect((await notify(`http://x/${project.fullPath}/-/alerts/notify.json`, integration.token, {})).status).toBe(403);
  });
});

describe("the alerts queue consumer", () => {
  it("a generic payload: defaults, grouping by fingerprint, resolution on end_time, a new alert after that", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    for (let i = 0; i < 3; i++) await notify(integration.url, integration.token, { fingerprint: ["db", 1], severity: "HIGH", hosts: [`h${i}`] });
    await notify(integration.url, integration.token, { title: "Other", severity: "bogus" });
    await drain(w, project);
    let alerts = await alertsOf(w, maintainer, project);
    expect(alerts.map((a) => [a.iid, a.title, a.severity, a.events, a.status])).toEqual([
      [2, "Other", "critical", 1, "triggered"],
      [1, "New: Alert", "high", 3, "triggered"],
    ]);
    expect(alerts[1].fingerprint).toMatch(/^[0-9a-f]{40}$/);
    expect(alerts[1].hosts).toEqual(["h0"]);

    await notify(integration.url, integration.token, { fingerprint: ["db", 1], end_time: "2026-11-25T12:00:00Z" });
    await drain(w, project);
    await notify(integration.url, integration.token, { fingerprint: ["db", 1] });
    await drain(w, project);
    alerts = await alertsOf(w, maintainer, project);
    expect(alerts.map((a) => [a.iid, a.events, a.status, a.ended_at])).toEqual([
      [3, 1, "triggered", null],
      [2, 1, "triggered", null],
      [1, 3, "resolved", "2026-11-25T12:00:00.000Z"],
    ]);
    const systemNotes = await w.db((db) => db.select({ note: notes.note }).from(notes).where(and(eq(notes.noteableType, "AlertManagement::Alert"), eq(notes.noteableId, Number(alerts[2].id)))).orderBy(notes.id));
    expect(systemNotes.map((n) => n.note)).toEqual([
      "logged an alert from **Grafana alerts**",
      "logged a recovery alert from **Grafana alerts**",
      "changed the status to **Resolved**",
    ]);
  });

  it("without a fingerprint, equal payloads group (start_time and hosts ignored)", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    await notify(integration.url, integration.token, { title: "CPU", service: "api", start_time: "2026-11-25T10:00:00Z", hosts: "a" });
    await notify(integration.url, integration.token, { service: "api", title: "CPU", start_time: "2026-11-25T11:00:00Z", hosts: "b" });
    await notify(integration.url, integration.token, { title: "CPU", service: "web" });
    await drain(w, project);
    const alerts = await alertsOf(w, maintainer, project);
    expect(alerts.map((a) => [a.service, a.events, a.started_at]).sort()).toEqual([
      ["api", 2, "2026-11-25T10:00:00.000Z"],
      ["web", 1, expect.any(String)],
    ]);
  });

  it("an Alertmanager payload through Miniflare's queue: alert, incident with the bot as author, resolved and closed", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w, { settings: { create_issue: true } });
    expect((await notify(integration.url, integration.token, alertmanager("firing"))).status).toBe(200);
    // Miniflare delivers the message to the Worker's queue() on its own (max_batch_timeout 1 s).
    for (let i = 0; i < 100 && (await pendingReceipts(w, project)).length; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await pendingReceipts(w, project)).toEqual([]);
    let [a] = await alertsOf(w, maintainer, project);
    expect(a).toMatchObject({
      title: "Error rate above 5%",
      description: "5xx ratio is 7.2% on web-1",
      severity: "low",
      monitoring_tool: "Prometheus",
      environment: "production",
      started_at: "2026-11-25T10:00:00.000Z",
      status: "triggered",
      issue_iid: 1,
    });
    const [incident] = await w.db((db) => db.select().from(issues).where(and(eq(issues.projectId, project.id), eq(issues.iid, 1))));
    expect([incident.issueType, incident.title, incident.state]).toEqual(["incident", "Error rate above 5%", "opened"]);
    const issue = (await (await w.as(maintainer).get(`/projects/${project.id}/issues/1`)).json()) as { author: { username: string }; issue_type: string };
    expect([issue.author.username, issue.issue_type]).toEqual(["alert-bot", "incident"]);

    await notify(integration.url, integration.token, alertmanager("firing"));
    await notify(integration.url, integration.token, alertmanager("resolved"));
    await drain(w, project);
    [a] = await alertsOf(w, maintainer, project);
    expect([a.events, a.status, a.ended_at]).toEqual([2, "resolved", "2026-11-25T10:30:00.000Z"]);
    const [closed] = await w.db((db) => db.select().from(issues).where(eq(issues.id, incident.id)));
    expect(closed.state).toBe("closed");
  });

  it("a redelivered message changes nothing", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    await notify(integration.url, integration.token, { fingerprint: "x" });
    const ids = await pendingReceipts(w, project);
    const [first] = await consume(ids);
    expect([first.ackAll, first.retryMessages]).toEqual([true, []]);
    const [again] = await consume(ids, 2);
    expect([again.ackAll, again.retryMessages]).toEqual([true, []]);
    expect((await alertsOf(w, maintainer, project)).map((a) => a.events)).toEqual([1]);
    expect((await receiptRows(w, ids))[0].processedAt).not.toBeNull();
  });

  it("1,000 alerts posted concurrently leave exactly the right counts", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    // Ten Alertmanager notifications of 100 alerts each (its webhook's batching), all in flight at
    // once: 1,000 alerts over 7 fingerprints.
    const posts = Array.from({ length: 10 }, (_, i) => {
      const body = alertmanager("firing");
      body.alerts = Array.from({ length: 100 }, (_, k) => ({ ...body.alerts[0], fingerprint: `fp-${(i * 100 + k) % 7}`, annotations: { summary: `T${(i * 100 + k) % 7}`, description: "" } }));
      return notify(integration.url, integration.token, body);
    });
    expect((await Promise.all(posts)).map((r) => r.status)).toEqual(Array(10).fill(200));
    // Two consumers racing on the same receipts (as redeliveries would), besides Miniflare's own.
    const ids = await pendingReceipts(w, project);
    await Promise.all([consume(ids), consume([...ids].reverse())]);
    await drain(w, project);
    const alerts = await alertsOf(w, maintainer, project);
    expect(alerts.length).toBe(7);
    expect(alerts.reduce((n, a) => n + a.events, 0)).toBe(1000);
    expect(Object.fromEntries(alerts.map((a) => [a.title, a.events]))).toEqual({ T0: 143, T1: 143, T2: 143, T3: 143, T4: 143, T5: 143, T6: 142 });
  }, 120_000);
});

describe("GET/PUT /projects/:id/alert_management/alerts", () => {
  it("filters by status and search, paginates, and shows one alert; 404 for an unknown iid", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    for (let i = 0; i < 3; i++) await notify(integration.url, integration.token, { title: `Disk ${i}`, fingerprint: `d${i}` });
    await notify(integration.url, integration.token, { title: "Memory", fingerprint: "m" });
    await drain(w, project);
    const reporter = await w.user();
    await w.addMembers("Project", project.id, { reporters: [reporter] });
    expect((await alertsOf(w, reporter, project, { search: "disk" })).map((a) => a.title)).toEqual(["Disk 2", "Disk 1", "Disk 0"]);
    const res = await w.as(reporter).get(`/projects/${project.id}/alert_management/alerts`, { query: { per_page: 3, page: 2 } });
    expect(res.headers.get("x-total")).toBe("4");
    expect(((await res.json()) as { title: string }[]).map((a) => a.title)).toEqual(["Disk 0"]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/alert_management/alerts`, { query: { status: "open" } }))).toEqual([
      400,
      { error: "status does not have a valid value" },
    ]);
    const one = await w.as(reporter).get(`/projects/${project.id}/alert_management/alerts/1`);
    expect(((await one.json()) as { title: string }).title).toBe("Disk 0");
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/alert_management/alerts/99`))).toEqual([404, { message: "404 Alert Not Found" }]);
    const guest = await w.user();
    await w.addMembers("Project", project.id, { guests: [guest] });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/alert_management/alerts`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/alert_management/alerts`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/alert_management/alerts`))).toEqual([401, { message: "401 Unauthorized" }]);
  }, 90_000);

  it("PUT changes the status (with its note) and assigns members, each with an assigned to-do on the alert", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    await notify(integration.url, integration.token, { title: "Disk", fingerprint: "d" });
    await drain(w, project);
    const developer = await w.user();
    await w.addMembers("Project", project.id, { developers: [developer] });
    const path = `/projects/${project.id}/alert_management/alerts/1`;
    const res = await w.as(developer).put(path, { json: { status: "acknowledged", assignee_ids: [maintainer.id] } });
    const body = (await res.json()) as { id: number; status: string; assignees: { username: string }[] };
    expect([res.status, body.status, body.assignees.map((u) => u.username)]).toEqual([200, "acknowledged", [maintainer.username]]);
    const todoRows = await w.db((db) => db.select().from(todos).where(and(eq(todos.targetType, "AlertManagement::Alert"), eq(todos.targetId, body.id))));
    expect(todoRows.map((t) => [t.userId, t.action, t.authorId])).toEqual([[maintainer.id, 1, developer.id]]);
    expect(await statusAndBody(await w.as(developer).put(path, { json: { assignee_ids: [w.stranger.id] } }))).toEqual([400, { message: "Assignee has no permissions" }]);
    const resolved = (await (await w.as(developer).put(path, { json: { status: "resolved" } })).json()) as { status: string; ended_at: string | null };
    expect([resolved.status, typeof resolved.ended_at]).toEqual(["resolved", "string"]);
    const reporter = await w.user();
    await w.addMembers("Project", project.id, { reporters: [reporter] });
    expect(await statusAndBody(await w.as(reporter).put(path, { json: { status: "triggered" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
