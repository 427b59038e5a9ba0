import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issuableMetricImages } from "../../db/schema";
import { BASE, request, statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world, type TestProject, type TestUser, type World, type TestIssue } from "../helpers/world";
import { makeIssue } from "../helpers/noteables";

type Json = Record<string, unknown>;
const blobs = (env as unknown as { BLOBS: R2Bucket }).BLOBS;
const path = (projectId: number, iid: number, rest = "") => `/projects/${projectId}/issues/${iid}/metric_images${rest}`;

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

function upload(fields: Record<string, string> = {}, file: File | null = new File([PNG], "chart.png", { type: "image/png" })) {
  const form = new FormData();
  if (file) form.append("file", file);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return { multipart: form };
}

const imageRows = (w: World, issueId: number) =>
  w.db((db) => db.select().from(issuableMetricImages).where(eq(issuableMetricImages.issueId, issueId)));

/** A private project with a reporter and a guest, and an incident written by the guest. */
async function incidentSetup(visibility: "private" | "public" = "private") {
  const w = await world();
  const reporter = await w.user();
  const guest = await w.user();
  const project = await w.project({ visibility, reporters: [reporter], guests: [guest] });
  const incident = await makeIssue(w, project, { issueType: "incident", author: guest });
  return { w, reporter, guest, project, incident };
}

async function uploaded(w: World, user: TestUser, project: TestProject, issue: TestIssue, fields: Record<string, string> = {}) {
  const res = await w.as(user).post(path(project.id, issue.iid), upload(fields));
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

describe("POST /projects/:id/issues/:issue_iid/metric_images", () => {
  it("stores the file in R2 and the row in Postgres: 201 with the metric image", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    const res = await w.as(reporter).post(path(project.id, incident.iid), upload({ url: "https://grafana.example.com/d/1", url_text: "Latency" }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(["id", "created_at", "filename", "file_path", "url", "url_text"]);
    expect(body).toMatchObject({ filename: "chart.png", url: "https://grafana.example.com/d/1", url_text: "Latency" });
    expect(body.file_path).toBe(`${BASE}/uploads/-/system/issuable_metric_image/file/${body.id}/chart.png`);
    const [row] = await imageRows(w, incident.id);
    expect([row.id, row.fileName, row.size]).toEqual([body.id, "chart.png", PNG.length]);
    const object = await blobs.get(row.r2Key);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(PNG);
    expect(object!.httpMetadata?.contentType).toBe("image/png");
  });

  it("sanitizes the file name as CarrierWave does", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    const res = await w.as(reporter).post(path(project.id, incident.iid), upload({}, new File([PNG], "my chart (1).PNG")));
    expect(((await res.json()) as Json).filename).toBe("my_chart__1_.PNG");
  });

  it("answers 403 Not allowed! for an issue that is not an incident, for guests, and for admins who are not members", async () => {
    const { w, reporter, guest, project, incident } = await incidentSetup();
    const plain = await makeIssue(w, project);
    const cases = [
      [reporter, plain],
      [guest, incident], // the guest wrote it, but guests may not update incidents
    ] as const;
    for (const [user, issue] of cases) {
      expect(await statusAndBody(await w.as(user).post(path(project.id, issue.iid), upload()))).toEqual([403, { message: "Not allowed!" }]);
    }
    expect(await statusAndBody(await w.root.post(path(project.id, incident.iid), upload()))).toEqual([403, { message: "Not allowed!" }]);
    expect(await imageRows(w, incident.id)).toEqual([]);
  });

  it("answers 403 with the validation message for a file that is not an image or an internal URL", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    const notImage = await w.as(reporter).post(path(project.id, incident.iid), upload({}, new File(["text"], "notes.txt")));
    expect(await statusAndBody(notImage)).toEqual([
      403,
      { message: "Validation failed: File does not have a supported extension. Only png, jpg, jpeg, gif, bmp, tiff, ico, and webp are supported" },
    ]);
    const local = await w.as(reporter).post(path(project.id, incident.iid), upload({ url: "http://127.0.0.1:9090/graph", url_text: "x".repeat(129) }));
    expect(await statusAndBody(local)).toEqual([
      403,
      { message: "Validation failed: Url is blocked: Requests to localhost are not allowed, Url text is too long (maximum is 128 characters)" },
    ]);
    expect(await imageRows(w, incident.id)).toEqual([]);
  });

  it("answers 400 for a missing file or one over 1 MB", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    expect(await statusAndBody(await w.as(reporter).post(path(project.id, incident.iid), upload({ url: "https://x.example" }, null)))).toEqual([
      400,
      { error: "file is missing" },
    ]);
    const big = new File([new Uint8Array(1024 * 1024 + 1)], "big.png");
    expect(await statusAndBody(await w.as(reporter).post(path(project.id, incident.iid), upload({}, big)))).toEqual([
      400,
      { message: "400 Bad request - File is too large" },
    ]);
  });

  hidesPrivateProject(async (w, project) => w.as(w.stranger).post(path(project.id, 1), upload()));
  requiresAuthentication(async (w) => w.anonymous.post(path(1, 1), upload()));
});

describe("GET /projects/:id/issues/:issue_iid/metric_images", () => {
  it("lists the images oldest first, to guests and anonymously on a public project", async () => {
    const { w, reporter, guest, project, incident } = await incidentSetup("public");
    const first = await uploaded(w, reporter, project, incident, { url_text: "first" });
    const second = await uploaded(w, reporter, project, incident, { url_text: "second" });
    for (const client of [w.as(guest), w.anonymous]) {
      const res = await client.get(path(project.id, incident.iid));
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json[];
      expect(body.map((i) => [i.id, i.url_text])).toEqual([
        [first.id, "first"],
        [second.id, "second"],
      ]);
      expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(4);
    }
  });

  it("answers 404 for a confidential incident the guest may not read", async () => {
    const { w, guest, project } = await incidentSetup();
    const secret = await makeIssue(w, project, { issueType: "incident", confidential: true });
    expect(await statusAndBody(await w.as(guest).get(path(project.id, secret.iid)))).toEqual([404, { message: "404 Issue Not Found" }]);
  });

  hidesPrivateProject(async (w, project) => w.as(w.stranger).get(path(project.id, 1)));
});

describe("PUT /projects/:id/issues/:issue_iid/metric_images/:metric_image_id", () => {
  it("updates url and url_text for a reporter and for the incident's author", async () => {
    const { w, reporter, guest, project, incident } = await incidentSetup();
    const image = await uploaded(w, reporter, project, incident, { url: "https://a.example", url_text: "A" });
    const res = await w.as(reporter).put(path(project.id, incident.iid, `/${image.id}`), { json: { url_text: "Renamed" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: image.id, url: "https://a.example", url_text: "Renamed" });
    const byAuthor = await w.as(guest).put(path(project.id, incident.iid, `/${image.id}`), { form: { url: "https://b.example" } });
    expect(byAuthor.status).toBe(200);
    const [row] = await imageRows(w, incident.id);
    expect([row.url, row.urlText]).toEqual(["https://b.example", "Renamed"]);
  });

  it("answers 404 Metric image not found and 400 when the change is invalid", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    const image = await uploaded(w, reporter, project, incident);
    expect(await statusAndBody(await w.as(reporter).put(path(project.id, incident.iid, "/2147483000"), { json: { url_text: "x" } }))).toEqual([
      404,
      { message: "Metric image not found" },
    ]);
    const tooLong = await w.as(reporter).put(path(project.id, incident.iid, `/${image.id}`), { json: { url_text: "something_long".repeat(100) } });
    expect(await statusAndBody(tooLong)).toEqual([400, { message: "Metric image could not be updated" }]);
    expect((await imageRows(w, incident.id))[0].urlText).toBeNull();
  });

  it("answers 403 for a guest who did not write the incident and for a public project's non-member", async () => {
    const { w, reporter, project } = await incidentSetup("public");
    const other = await makeIssue(w, project, { issueType: "incident", author: reporter });
    const image = await uploaded(w, reporter, project, other);
    const guest = await w.user();
    await w.addMembers("Project", project.id, { guests: [guest] });
    for (const user of [guest, w.stranger]) {
      const res = await w.as(user).put(path(project.id, other.iid, `/${image.id}`), { json: { url_text: "mine" } });
      expect(await statusAndBody(res)).toEqual([403, { message: "403 Forbidden" }]);
    }
  });

  requiresAuthentication(async (w) => w.anonymous.put(path(1, 1, "/1"), { json: { url: "https://x.example" } }));
});

describe("DELETE /projects/:id/issues/:issue_iid/metric_images/:metric_image_id", () => {
  it("removes the row and the R2 object: 204", async () => {
    const { w, reporter, project, incident } = await incidentSetup();
    const image = await uploaded(w, reporter, project, incident);
    const [row] = await imageRows(w, incident.id);
    const res = await w.as(reporter).delete(path(project.id, incident.iid, `/${image.id}`));
    expect(await statusAndBody(res)).toEqual([204, ""]);
    expect(await imageRows(w, incident.id)).toEqual([]);
    expect(await blobs.head(row.r2Key)).toBeNull();
  });

  it("lets the incident's author delete, refuses other guests, and answers 404 for an unknown image", async () => {
    const { w, reporter, guest, project, incident } = await incidentSetup();
    const image = await uploaded(w, reporter, project, incident);
    const otherGuest = await w.user();
    await w.addMembers("Project", project.id, { guests: [otherGuest] });
    expect(await statusAndBody(await w.as(otherGuest).delete(path(project.id, incident.iid, `/${image.id}`)))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await w.as(guest).delete(path(project.id, incident.iid, "/2147483000")))).toEqual([
      404,
      { message: "Metric image not found" },
    ]);
    expect((await w.as(guest).delete(path(project.id, incident.iid, `/${image.id}`))).status).toBe(204);
  });

  hidesPrivateProject(async (w, project) => w.as(w.stranger).delete(path(project.id, 1, "/1")));
  requiresAuthentication(async (w) => w.anonymous.delete(path(1, 1, "/1")));
});

describe("GET /uploads/-/system/issuable_metric_image/file/:id/:filename", () => {
  it("serves the stored bytes to whoever may read the incident, and 404 to others", async () => {
    const { w, reporter, guest, project, incident } = await incidentSetup();
    const image = await uploaded(w, reporter, project, incident);
    const res = await request("GET", image.file_path as string, guest.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
    for (const token of [null, w.stranger.token]) {
      expect(await statusAndBody(await request("GET", image.file_path as string, token))).toEqual([404, { message: "404 Not Found" }]);
    }
    const wrongName = (image.file_path as string).replace(/chart\.png$/, "other.png");
    expect((await request("GET", wrongName, reporter.token)).status).toBe(404);
  });
});
