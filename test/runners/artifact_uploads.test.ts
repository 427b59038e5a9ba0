import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { statusAndBody, worker } from "../helpers/client";
import { ciProject, claim, createPipeline, projectRunner, type Claimed } from "../helpers/ci";
import { rows } from "../helpers/db";
import { world, type World } from "../helpers/world";
import { bytesOf, digestHex } from "../helpers/bytes";

const bindings = env as unknown as Bindings;
const MiB = 1024 * 1024;
const BOUNDARY = "----edgeforge-test-boundary-7MA4YWxkTrZu0gW";
const EMPTY_BODY = [400, { error: "Empty message body supplied with multipart/form-data content-type" }];

const hex = (bytes: ArrayBuffer | Uint8Array) => digestHex("SHA-256", bytes);
const text = (s: string) => new TextEncoder().encode(s);
const field = (name: string, value: string) => text(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
const fileHead = (name: string) => text(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/zip\r\n\r\n`);

type Piece = Uint8Array | { repeat: Uint8Array; times: number } | "cut" | "error";

/**
 * A multipart body sent as a stream, so it carries no Content-Length and the Worker must read it as it
 * comes: pieces in order, a file given as a block repeated, `cut` ends the stream where it is (no closing
 * delimiter), `error` breaks it.
 */
function streamed(pieces: Piece[]): ReadableStream<Uint8Array> {
  const queue = [...pieces];
  let repeats = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue[0];
      if (next === undefined || next === "cut") return controller.close();
      if (next === "error") return controller.error(new Error("connection lost"));
      if (next instanceof Uint8Array) {
        queue.shift();
        return controller.enqueue(next);
      }
      controller.enqueue(next.repeat);
      if (++repeats === next.times) {
        repeats = 0;
        queue.shift();
      }
    },
  });
}

/** The closing delimiter right after a file's bytes. */
const closing = () => text(`\r\n--${BOUNDARY}--\r\n`);
/** The closing delimiter after a field (which ends with its CRLF). */
const end = () => text(`--${BOUNDARY}--\r\n`);
/** The CRLF that ends the file's bytes, then a field: what follows a file part. */
const afterFile = (name: string, value: string) => new Uint8Array([...text("\r\n"), ...field(name, value)]);

function post(job: { id: number }, body: ReadableStream<Uint8Array> | Uint8Array, headers: Record<string, string> = {}) {
  return worker.fetch(
    new Request(`http://edgeforge.test/api/v4/jobs/${job.id}/artifacts`, {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
      body,
    }),
  );
}

async function runningJob(w: World) {
  const { api, project } = await ciProject(w, "build:\n  script: [make]\n  artifacts:\n    paths: [out]\n");
  const runner = await projectRunner(api, project.id);
  await createPipeline(api, project.id);
  const job = await claim(runner.token);
  return { api, project, job };
}

/** Nothing of the job's artifacts anywhere: no row, no R2 object under its prefix. */
async function expectNothingStored(w: World, projectId: number, job: Claimed) {
  expect(await rows(w, sql`SELECT id FROM ci_job_artifacts WHERE job_id = ${job.id}`)).toEqual([]);
  expect((await bindings.BLOBS.list({ prefix: `artifacts/${projectId}/${job.id}/` })).objects).toEqual([]);
}

describe("POST /jobs/:id/artifacts (streamed)", () => {
  it("stores a 30 MiB archive in parts and serves it byte for byte; a field after the file is read", async () => {
    const w = await world();
    const { api, project, job } = await runningJob(w);
    const block = bytesOf(MiB, 42);
    const whole = new Uint8Array(30 * MiB);
    for (let i = 0; i < 30; i++) {
      whole.set(block, i * MiB);
      whole[i * MiB] = i; // every block differs, so a block out of order changes the digest
    }
    const blocks = Array.from({ length: 30 }, (_, i) => whole.subarray(i * MiB, (i + 1) * MiB));
    const body = streamed([field("artifact_type", "archive"), fileHead("artifacts.zip"), ...blocks, afterFile("expire_in", "1 day"), end()]);
    const res = await post(job, body, { "JOB-TOKEN": job.token });
    expect(await statusAndBody(res)).toEqual([201, 201]);

    const [row] = await rows(w, sql`SELECT size, filename, r2_key, expire_at FROM ci_job_artifacts WHERE job_id = ${job.id} AND file_type = 'archive'`);
    expect([Number(row.size), row.filename]).toEqual([30 * MiB, "artifacts.zip"]);
    // `expire_in` came after the file: about a day from now, not the default 30 days.
    const expires = new Date(row.expire_at).getTime() - Date.now();
    expect(expires).toBeGreaterThan(23 * 3600_000);
    expect(expires).toBeLessThan(25 * 3600_000);

    const download = await api.get(`/projects/${project.id}/jobs/${job.id}/artifacts`);
    expect(download.status).toBe(200);
    expect(await hex(await download.arrayBuffer())).toBe(await hex(whole));
  });

  it("answers 413 past max_artifacts_size while streaming, leaving no row and no object", async () => {
    const w = await world();
    const { project, job } = await runningJob(w);
    const admin = w.as(await w.user({ admin: true }));
    // A small instance limit (6 MB) keeps the test short; the default is 100 MB. Only this file uploads
    // artifacts of more than a few kilobytes, so the suite's other files do not meet it.
    expect((await admin.put("/application/settings", { json: { max_artifacts_size: 6 } })).status).toBe(200);
    try {
      const block = bytesOf(MiB, 7);
      // 6 MiB fit: one full part went to R2 before the limit was passed, and is aborted.
      const over = streamed([fileHead("big.zip"), { repeat: block, times: 6 }, text("!"), closing()]);
      expect(await statusAndBody(await post(job, over, { "JOB-TOKEN": job.token }))).toEqual([413, { message: "413 Request Entity Too Large" }]);
      await expectNothingStored(w, project.id, job);
      const exact = streamed([fileHead("fits.zip"), { repeat: block, times: 6 }, closing()]);
      expect((await post(job, exact, { "JOB-TOKEN": job.token })).status).toBe(201);
    } finally {
      await admin.put("/application/settings", { json: { max_artifacts_size: 100 } });
    }
  });

  it("leaves nothing when the body is cut or broken mid-file", async () => {
    const w = await world();
    const { project, job } = await runningJob(w);
    const block = bytesOf(MiB, 9);
    const cut = streamed([fileHead("artifacts.zip"), { repeat: block, times: 12 }, "cut"]);
    expect(await statusAndBody(await post(job, cut, { "JOB-TOKEN": job.token }))).toEqual(EMPTY_BODY);
    await expectNothingStored(w, project.id, job);
    const broken = streamed([fileHead("artifacts.zip"), { repeat: block, times: 7 }, "error"]);
    const res = await post(job, broken, { "JOB-TOKEN": job.token }).catch(() => null);
    if (res) expect(res.status).toBe(400);
    await expectNothingStored(w, project.id, job);
  });

  it("checks a token sent before the file first, reads one sent after it, and wants the file", async () => {
    const w = await world();
    const { project, job } = await runningJob(w);
    const small = bytesOf(1000, 3);
    const wrongFirst = streamed([field("token", "wrong"), fileHead("a.zip"), small, closing()]);
    expect(await statusAndBody(await post(job, wrongFirst))).toEqual([403, { message: "403 Forbidden" }]);
    const wrongAfter = streamed([fileHead("a.zip"), small, afterFile("token", "wrong"), end()]);
    expect(await statusAndBody(await post(job, wrongAfter))).toEqual([403, { message: "403 Forbidden" }]);
    await expectNothingStored(w, project.id, job);
    const noFile = streamed([field("token", job.token), field("artifact_type", "archive"), end()]);
    expect(await statusAndBody(await post(job, noFile))).toEqual([400, { error: "file is missing" }]);
    const badType = streamed([fileHead("a.zip"), small, afterFile("artifact_type", "nope"), end()]);
    expect(await statusAndBody(await post(job, badType, { "JOB-TOKEN": job.token }))).toEqual([400, { error: "artifact_type does not have a valid value" }]);
    await expectNothingStored(w, project.id, job);

    const tokenAfter = streamed([fileHead("a.zip"), small, afterFile("token", job.token), end()]);
    expect((await post(job, tokenAfter)).status).toBe(201);
    const [row] = await rows(w, sql`SELECT size, r2_key FROM ci_job_artifacts WHERE job_id = ${job.id}`);
    expect(Number(row.size)).toBe(1000);
    // A second upload of the same type replaces the first, and its object goes with it.
    const again = streamed([fileHead("b.zip"), bytesOf(2000, 4), closing()]);
    expect((await post(job, again, { "JOB-TOKEN": job.token })).status).toBe(201);
    const objects = (await bindings.BLOBS.list({ prefix: `artifacts/${project.id}/${job.id}/` })).objects;
    expect(objects.map((o) => o.size)).toEqual([2000]);
    expect(await rows(w, sql`SELECT filename FROM ci_job_artifacts WHERE job_id = ${job.id}`)).toEqual([{ filename: "b.zip" }]);
  });
});
