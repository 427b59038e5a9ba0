import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { alertManagementAlertMetricImages } from "../../db/schema";
import { BASE, request, statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { alertsOf, drain, notify, withIntegration, type Json } from "../helpers/alerts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

function imageForm(name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append("file", new File([bytes], name, { type: "image/png" }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

/** A private project with an alert (iid 1), its maintainer, a developer, a reporter and a guest. */
async function withAlert(w: World) {
  const { maintainer, project, integration } = await withIntegration(w);
  const [developer, reporter, guest] = [await w.user(), await w.user(), await w.user()];
  await w.addMembers("Project", project.id, { developers: [developer], reporters: [reporter], guests: [guest] });
  expect((await notify(integration.url as string, integration.token as string, { title: "Disk full", fingerprint: "disk" })).status).toBe(200);
  await drain(w, project);
  const [alert] = await alertsOf(w, maintainer, project);
  const base = `/projects/${project.id}/alert_management_alerts/${alert.iid}/metric_images`;
  return { maintainer, developer, reporter, guest, project, alert, base };
}

describe("POST /projects/:id/alert_management_alerts/:alert_iid/metric_images", () => {
  it("stores the image in R2 and the row: 201 with the metric image, served at its file_path", async () => {
    const w = await world();
    const { developer, base } = await withAlert(w);
    const res = await w.as(developer).post(base, { multipart: imageForm("disk usage.png", PNG, { url: "https://grafana.example.com/d/1", url_text: "Disk" }) });
    const [status, body] = await statusAndBody(res);
    expect(status).toBe(201);
    const image = body as Json;
    expect(Object.keys(image)).toEqual(["id", "created_at", "filename", "file_path", "url", "url_text"]);
    expect(image).toMatchObject({ filename: "disk_usage.png", url: "https://grafana.example.com/d/1", url_text: "Disk" });
    expect(image.file_path).toBe(`${BASE}/uploads/-/system/alert_management_metric_image/file/${image.id}/disk_usage.png`);
    const served = await request("GET", image.file_path as string, developer.token);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
    expect((await request("GET", image.file_path as string, w.stranger.token)).status).toBe(404);
    expect((await request("GET", image.file_path as string, null)).status).toBe(404);
  });

  it("answers GitLab's errors: 400 File is too large, 400 for a non-image, 403 for a guest and a missing alert, 404 for a stranger", async () => {
    const w = await world();
    const { reporter, guest, project, alert, base } = await withAlert(w);
    const big = new Uint8Array(1024 * 1024 + 1);
    expect(await statusAndBody(await w.as(reporter).post(base, { multipart: imageForm("big.png", big) }))).toEqual([400, { message: "400 Bad request - File is too large" }]);
    expect(await statusAndBody(await w.as(reporter).post(base, { multipart: imageForm("notes.txt", "text") }))).toEqual([
      400,
      { message: "Validation failed: File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported" },
    ]);
    expect(await statusAndBody(await w.as(guest).post(base, { multipart: imageForm("a.png", PNG) }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${project.id}/alert_management_alerts/99/metric_images`, { multipart: imageForm("a.png", PNG) }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${project.id}/alert_management_alerts/x/metric_images`, { multipart: imageForm("a.png", PNG) }))).toEqual([400, { error: "alert_iid is invalid" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(base, { multipart: imageForm("a.png", PNG) }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await w.db((db) => db.select().from(alertManagementAlertMetricImages).where(eq(alertManagementAlertMetricImages.alertId, Number(alert.id))))).toEqual([]);
  });
});

describe("GET, PUT and DELETE of an alert's metric images", () => {
  it("lists oldest first; PUT changes url and url_text (422 when invalid); DELETE removes row and blob; 404s by GitLab's words", async () => {
    const w = await world();
    const { reporter, guest, base } = await withAlert(w);
    const api = w.as(reporter);
    const first = (await (await api.post(base, { multipart: imageForm("a.png", PNG) })).json()) as Json;
    const second = (await (await api.post(base, { multipart: imageForm("b.png", PNG, { url_text: "B" }) })).json()) as Json;
    expect(((await (await api.get(base)).json()) as Json[]).map((i) => i.id)).toEqual([first.id, second.id]);
    expect(await statusAndBody(await w.as(guest).get(base))).toEqual([404, { message: "Alert not found" }]);

    const updated = await statusAndBody(await api.put(`${base}/${first.id}`, { json: { url: "https://example.com/m", url_text: "Metric" } }));
    expect(updated).toEqual([200, { ...first, url: "https://example.com/m", url_text: "Metric" }]);
    expect(await statusAndBody(await api.put(`${base}/${first.id}`, { json: { url: "http://127.0.0.1/x" } }))).toEqual([422, { message: "Metric image could not be updated" }]);
    expect(await statusAndBody(await api.put(`${base}/2147483647`, { json: { url_text: "x" } }))).toEqual([404, { message: "Metric image not found" }]);
    expect(await statusAndBody(await w.as(guest).put(`${base}/${first.id}`, { json: { url_text: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);

    expect(await statusAndBody(await w.as(guest).delete(`${base}/${first.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api.delete(`${base}/${first.id}`)).status).toBe(204);
    expect(await statusAndBody(await api.delete(`${base}/${first.id}`))).toEqual([404, { message: "Metric image not found" }]);
    expect((await request("GET", first.file_path as string, reporter.token)).status).toBe(404);
    const rows = await w.db((db) => db.select().from(alertManagementAlertMetricImages).where(eq(alertManagementAlertMetricImages.id, Number(second.id))));
    expect(rows.map((r) => r.urlText)).toEqual(["B"]);
  });
});
