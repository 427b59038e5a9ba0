import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { gunzipSync, strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { projectTransferJobs } from "../../db/schema";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

type World = Awaited<ReturnType<typeof world>>;
type Json = Record<string, any>;

/** Runs the export queue consumer on one message, as the queue delivers it. */
async function consume(jobId: number, queueName = "edgeforge-exports", attempts = 1) {
  const batch = createMessageBatch(queueName, [{ id: `export-${jobId}-${attempts}`, timestamp: new Date(), attempts, body: { kind: "export", id: jobId } }]);
  const ctx = createExecutionContext();
  await queue(batch, env as unknown as Bindings, ctx);
  return getQueueResult(batch, ctx);
}

async function jobsOf(w: World, projectId: number) {
  return w.db((db) => db.select().from(projectTransferJobs).where(eq(projectTransferJobs.projectId, projectId)).orderBy(projectTransferJobs.id));
}

/** A job row written directly (no queue message), for tests that deliver the message themselves. */
async function queuedJob(w: World, projectId: number, userId: number, upload?: { url: string; method: string }) {
  const [job] = await w.db((db) =>
    db
      .insert(projectTransferJobs)
      .values({ kind: "export", projectId, userId, correlationId: "test", uploadUrl: upload?.url ?? null, uploadMethod: upload?.method ?? null })
      .returning(),
  );
  return job;
}

/** Polls the status endpoint until the export leaves queued/started (the real queue delivers the message). */
async function settledStatus(w: World, user: { token: string }, projectId: number): Promise<Json> {
  for (let i = 0; i < 100; i++) {
    const body = (await (await w.as(user as never).get(`/projects/${projectId}/export`)).json()) as Json;
    if (!["queued", "started", "regeneration_in_progress"].includes(body.export_status as string)) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the export did not finish within 10 s");
}

/** The members of an uncompressed tar: path → bytes. */
function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = strFromU8(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const prefix = strFromU8(header.subarray(345, 500)).replace(/\0.*$/s, "");
    const size = parseInt(strFromU8(header.subarray(124, 136)).replace(/\0.*$/s, "").trim(), 8);
    const type = String.fromCharCode(header[156]);
    at += 512;
    if (type === "0" || type === "\0") files.set(prefix ? `${prefix}/${name}` : name, tar.slice(at, at + size));
    at += Math.ceil(size / 512) * 512;
  }
  return files;
}

/** A project with a repository (two commits, a tag), a label, an issue with a comment and a label. */
async function exportableProject(w: World) {
  const maintainer = await w.user();
  const developer = await w.user();
  const project = await w.project({ maintainers: [maintainer], developers: [developer] });
  const api = w.as(maintainer);
  const first = await api.post(`/projects/${project.id}/repository/commits`, {
    json: { branch: "main", commit_message: "first", actions: [{ action: "create", file_path: "README.md", content: "# export me\n" }] },
  });
  expect(first.status).toBe(201);
  const second = (await (await api.post(`/projects/${project.id}/repository/commits`, {
    json: { branch: "main", commit_message: "second", actions: [{ action: "create", file_path: "src/a.txt", content: "a\n" }] },
  })).json()) as Json & { id: string };
  expect((await api.post(`/projects/${project.id}/repository/tags`, { json: { tag_name: "v1", ref: "main", message: "release" } })).status).toBe(201);
  expect((await api.post(`/projects/${project.id}/labels`, { json: { name: "bug", color: "#ff0000" } })).status).toBe(201);
  const issue = (await (await api.post(`/projects/${project.id}/issues`, { json: { title: "Exported issue", labels: "bug" } })).json()) as Json & { iid: number };
  expect((await api.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { json: { body: "a comment" } })).status).toBe(201);
  return { maintainer, developer, project, head: second.id };
}

describe("POST /projects/:id/export", () => {
  it("queues an export: 202, GitLab's body, one job row, which the queue consumer then finishes", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const res = await w.as(maintainer).post(`/projects/${project.id}/export`, { json: { description: "snapshot" } });
    expect(await statusAndBody(res)).toEqual([202, { message: "202 Accepted" }]);
    const jobs = await jobsOf(w, project.id);
    expect(jobs.map((j) => [j.kind, j.description, j.userId])).toEqual([["export", "snapshot", maintainer.id]]);
    // Miniflare's queue delivers the message to the Worker's consumer, as Cloudflare does.
    const status = await settledStatus(w, maintainer, project.id);
    expect(status).toMatchObject({ id: project.id, path_with_namespace: project.fullPath, export_status: "finished" });
  });

  it("answers 429 past the application setting project_export_limit (6 a minute per user), after the parameters are checked", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    // The counters of this user's current and next minute start at the limit, so the request is the 7th of
    // its minute whichever minute it lands in (the setting itself is instance-wide and stays at 6).
    const key = `project_export:${maintainer.id}`;
    await w.db((db) =>
      db.execute(sql`INSERT INTO application_rate_limits (key, window_start, count)
        SELECT ${key}, to_timestamp(floor(extract(epoch FROM now()) / 60) * 60 + s * 60), 6 FROM generate_series(0, 1) s`),
    );
    const path = `/projects/${project.id}/export`;
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { upload: { http_method: "PUT" } } }))).toEqual([400, { error: "upload[url] is missing" }]);
    const limited = await w.as(maintainer).post(path, { json: {} });
    expect(await statusAndBody(limited)).toEqual([429, { message: { error: "This endpoint has been requested too many times. Try again later." } }]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await jobsOf(w, project.id)).toEqual([]);
    // Below the limit again, the export is queued.
    await w.db((db) => db.execute(sql`DELETE FROM application_rate_limits WHERE key = ${key}`));
    expect((await w.as(maintainer).post(path, { json: {} })).status).toBe(202);
  });

  it("answers GitLab's 400 bodies for a bad upload hash", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const path = `/projects/${project.id}/export`;
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { upload: { http_method: "PUT" } } }))).toEqual([400, { error: "upload[url] is missing" }]);
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { upload: { url: "http://example.com/x", http_method: "GET" } } }))).toEqual([
      400,
      { error: "upload[http_method] does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(maintainer).post(path, { json: { upload: { url: "ftp://example.com/x" } } }))).toEqual([
      400,
      { message: { url: ["is blocked: Only allowed schemes are http, https"] } },
    ]);
    expect(await jobsOf(w, project.id)).toEqual([]);
  });

  it("is for maintainers: developers 403, non-members 404, anonymous 401", async () => {
    const w = await world();
    const { developer, project } = await exportableProject(w);
    const path = `/projects/${project.id}/export`;
    expect((await w.as(developer).post(path, { json: {} })).status).toBe(403);
    expect((await w.as(developer).get(path)).status).toBe(403);
    expect((await w.as(developer).get(`${path}/download`)).status).toBe(403);
    expect(await statusAndBody(await w.as(w.stranger).post(path, { json: {} }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(path))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await w.anonymous.post(path, { json: {} })).status).toBe(401);
    expect(await jobsOf(w, project.id)).toEqual([]);
  });
});

describe("GET /projects/:id/export and /export/download", () => {
  it("none before any export, queued while the job waits, then finished with _links; download 404s until then", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const api = w.as(maintainer);
    expect(((await (await api.get(`/projects/${project.id}/export`)).json()) as Json).export_status).toBe("none");
    expect(await statusAndBody(await api.get(`/projects/${project.id}/export/download`))).toEqual([404, { message: "404 Not found or has expired" }]);
    const job = await queuedJob(w, project.id, maintainer.id);
    const queued = (await (await api.get(`/projects/${project.id}/export`)).json()) as Json;
    expect([queued.export_status, queued._links]).toEqual(["queued", undefined]);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/export/download`))).toEqual([404, { message: "The project export file is not available yet" }]);
    await consume(job.id);
    const status = (await (await api.get(`/projects/${project.id}/export`)).json()) as Json;
    expect(status.export_status).toBe("finished");
    expect(status._links.api_url).toMatch(new RegExp(`/api/v4/projects/${project.id}/export/download$`));
  });

  it("writes GitLab's layout: VERSION, tree/project.json, relation ndjson, and a bundle of every ref", async () => {
    const w = await world();
    const { maintainer, project, head } = await exportableProject(w);
    const api = w.as(maintainer);
    await consume((await queuedJob(w, project.id, maintainer.id)).id);
    const res = await api.get(`/projects/${project.id}/export/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="\\d{4}-\\d{2}-\\d{2}_\\d{2}-\\d{2}-\\d{3}_${project.fullPath.replace("/", "_")}_export\\.tar\\.gz"`));
    const files = untar(gunzipSync(new Uint8Array(await res.arrayBuffer())));

    expect(strFromU8(files.get("VERSION")!)).toBe("0.2.4");
    const projectJson = JSON.parse(strFromU8(files.get("tree/project.json")!));
    expect(projectJson).toMatchObject({ name: project.name, path: project.path, visibility_level: 0, default_branch: "main" });
    expect(projectJson).not.toHaveProperty("runners_token");
    const lines = (name: string) => strFromU8(files.get(`tree/project/${name}.ndjson`)!).split("\n").filter(Boolean).map((l) => JSON.parse(l) as Json);
    expect(lines("labels").map((l) => [l.title, l.type])).toEqual([["bug", "ProjectLabel"]]);
    const [issue] = lines("issues");
    expect(issue).toMatchObject({ title: "Exported issue", iid: 1, state: "opened" });
    expect(issue.notes.filter((n: Json) => !n.system).map((n: Json) => n.note)).toEqual(["a comment"]);
    expect(issue.label_links.map((l: Json) => l.label.title)).toEqual(["bug"]);
    expect(lines("project_members").map((m) => m.user.username)).toHaveLength(3); // the owner, the maintainer, the developer

    const bundle = files.get("project.bundle")!;
    let split = 0;
    while (!(bundle[split] === 10 && bundle[split + 1] === 10)) split++;
    const [signature, ...refLines] = strFromU8(bundle.subarray(0, split)).split("\n");
    expect(signature).toBe("# v2 git bundle");
    expect(refLines).toContain(`${head} HEAD`);
    expect(refLines).toContain(`${head} refs/heads/main`);
    expect(refLines.some((l) => l.endsWith(" refs/tags/v1"))).toBe(true);
    const pack = bundle.subarray(split + 2);
    expect(strFromU8(pack.subarray(0, 4))).toBe("PACK");
    // Two commits, three trees (two roots, src/), two blobs, one annotated tag.
    expect(new DataView(pack.buffer, pack.byteOffset + 8, 4).getUint32(0)).toBe(8);
  });
});

describe("the export queue consumer", () => {
  it("a redelivered message changes nothing; a started job whose lease passed is taken over", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const job = await queuedJob(w, project.id, maintainer.id);
    // Another consumer holds the lease: the delivery leaves the job alone.
    await w.db((db) => db.update(projectTransferJobs).set({ status: "started", leaseUntil: new Date(Date.now() + 60_000) }).where(eq(projectTransferJobs.id, job.id)));
    await consume(job.id);
    expect((await jobsOf(w, project.id)).map((j) => [j.status, j.r2Key])).toEqual([["started", null]]);
    // That consumer died: once its lease passed, the next delivery finishes the job.
    await w.db((db) => db.update(projectTransferJobs).set({ leaseUntil: new Date(Date.now() - 1000) }).where(eq(projectTransferJobs.id, job.id)));
    expect((await consume(job.id)).explicitAcks).toEqual([`export-${job.id}-1`]);
    const [finished] = await jobsOf(w, project.id);
    expect([finished.status, finished.attempts]).toEqual(["finished", 1]);
    // A redelivery of the finished job: nothing moves.
    await consume(job.id, "edgeforge-exports", 2);
    const [again] = await jobsOf(w, project.id);
    expect([again.status, again.attempts, again.r2Key, again.updatedAt.getTime()]).toEqual(["finished", 1, finished.r2Key, finished.updatedAt.getTime()]);
  });

  it("a new export of an exported project reads regeneration_in_progress; the dead-letter consumer marks a job failed", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const api = w.as(maintainer);
    await consume((await queuedJob(w, project.id, maintainer.id)).id);
    const second = await queuedJob(w, project.id, maintainer.id);
    expect(((await (await api.get(`/projects/${project.id}/export`)).json()) as Json).export_status).toBe("regeneration_in_progress");
    // The earlier archive stays downloadable meanwhile.
    expect((await api.get(`/projects/${project.id}/export/download`)).status).toBe(200);
    await consume(second.id, "edgeforge-exports-dlq", 6);
    const row = (await jobsOf(w, project.id))[1];
    expect([row.status, row.error]).toEqual(["failed", "The export failed after 6 attempts"]);
    expect(((await (await api.get(`/projects/${project.id}/export`)).json()) as Json).export_status).toBe("failed");
  });

  it("refuses an upload to a local address (the webhook guard): the job fails with GitLab's message", async () => {
    const w = await world();
    const { maintainer, project } = await exportableProject(w);
    const api = w.as(maintainer);
    expect((await api.post(`/projects/${project.id}/export`, { json: { upload: { url: "http://169.254.169.254/latest", http_method: "POST" } } })).status).toBe(202);
    const [job] = await jobsOf(w, project.id);
    expect([job.uploadUrl, job.uploadMethod]).toEqual(["http://169.254.169.254/latest", "POST"]);
    expect((await settledStatus(w, maintainer, project.id)).export_status).toBe("failed");
    const [row] = await jobsOf(w, project.id);
    expect(row.error).toMatch(/^URL is blocked: /);
  });
});

describe("concurrent exports", () => {
  it("10 exports of different projects, started at once through the HTTP entry point, all finish with their own archive", { timeout: 180_000 }, async () => {
    const w = await world();
    const projects = [];
    for (let i = 0; i < 10; i++) {
      const maintainer = await w.user();
      const project = await w.project({ maintainers: [maintainer] });
      const api = w.as(maintainer);
      expect((await api.post(`/projects/${project.id}/repository/commits`, { json: { branch: "main", commit_message: `c${i}`, actions: [{ action: "create", file_path: "n.txt", content: `${i}\n` }] } })).status).toBe(201);
      expect((await api.post(`/projects/${project.id}/issues`, { json: { title: `issue of project ${i}` } })).status).toBe(201);
      projects.push({ maintainer, project, api });
    }
    const started = await Promise.all(projects.map(({ api, project }) => api.post(`/projects/${project.id}/export`)));
    expect(started.map((r) => r.status)).toEqual(Array(10).fill(202));
    // The queue delivers the ten messages; each job finishes once (its lease), whatever the order.
    const deadline = Date.now() + 150_000;
    const statuses = new Map<number, string>();
    while (Date.now() < deadline && [...statuses.values()].filter((x) => x === "finished").length < 10) {
      for (const { api, project } of projects) {
        if (statuses.get(project.id) === "finished") continue;
        statuses.set(project.id, ((await (await api.get(`/projects/${project.id}/export`)).json()) as Json).export_status as string);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([...statuses.values()]).toEqual(Array(10).fill("finished"));
    for (const [i, { api, project }] of projects.entries()) {
      const files = untar(gunzipSync(new Uint8Array(await (await api.get(`/projects/${project.id}/export/download`)).arrayBuffer())));
      expect(JSON.parse(strFromU8(files.get("tree/project/issues.ndjson")!).trim()).title).toBe(`issue of project ${i}`);
      expect((await jobsOf(w, project.id)).map((j) => [j.status, j.attempts])).toEqual([["finished", 1]]);
    }
  });
});
