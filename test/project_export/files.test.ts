import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { gunzipSync, strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { lfsObjectsProjects, projectTransferJobs, uploads } from "../../db/schema";
import type { Bindings } from "../../functions/kernel/env";
import { PART_SIZE } from "../../functions/project_export/stream";
import { queue } from "../../functions/queue";
import { lfsContent, putObject, sha256 } from "../helpers/lfs";
import { world } from "../helpers/world";

type World = Awaited<ReturnType<typeof world>>;
type Json = Record<string, any>;

async function consume(jobId: number) {
  const batch = createMessageBatch("edgeforge-exports", [{ id: `export-${jobId}`, timestamp: new Date(), attempts: 1, body: { kind: "export", id: jobId } }]);
  const ctx = createExecutionContext();
  await queue(batch, env as unknown as Bindings, ctx);
  return getQueueResult(batch, ctx);
}

/** Exports the project through the consumer and returns the finished job and the downloaded archive's members. */
async function exported(w: World, user: { id: number; token: string }, projectId: number) {
  const [job] = await w.db((db) => db.insert(projectTransferJobs).values({ kind: "export", projectId, userId: user.id, correlationId: "test" }).returning());
  await consume(job.id);
  const [done] = await w.db((db) => db.select().from(projectTransferJobs).where(eq(projectTransferJobs.id, job.id)));
  const res = await w.as(user as never).get(`/projects/${projectId}/export/download`);
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { job: done, size: bytes.length, files: untar(gunzipSync(bytes)) };
}

function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = strFromU8(header.subarray(0, 100)).replace(/\0.*$/s, "");
    const size = parseInt(strFromU8(header.subarray(124, 136)).replace(/\0.*$/s, "").trim(), 8);
    at += 512;
    files.set(name, tar.slice(at, at + size));
    at += Math.ceil(size / 512) * 512;
  }
  return files;
}

function attach(name: string, content: string | Uint8Array, type: string) {
  const form = new FormData();
  form.append("file", new File([content], name, { type }));
  return form;
}

/** Incompressible bytes (gzip cannot shrink them below their size). */
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

describe("the export archive's uploads and LFS objects (UploadsManager, LfsSaver)", () => {
  it("holds uploads/<secret>/<filename>, lfs-objects/<oid>, lfs-objects.json and avatar/<filename> with the stored bytes", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const api = w.as(maintainer);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const upload = (await (await api.post(`/projects/${project.id}/uploads`, { multipart: attach("shot.png", png, "image/png") })).json()) as Json;
    const text = (await (await api.post(`/projects/${project.id}/uploads`, { multipart: attach("notes.txt", "hello", "text/plain") })).json()) as Json;
    const lfs = await lfsContent();
    expect((await putObject(project, maintainer, lfs.oid, lfs.size, lfs.bytes)).status).toBe(200);

    const avatarForm = new FormData();
    avatarForm.append("avatar", new File([png], "logo.png", { type: "image/png" }));
    expect((await api.put(`/projects/${project.id}`, { multipart: avatarForm })).status).toBe(200);

    const { job, files } = await exported(w, maintainer, project.id);
    expect(job.status).toBe("finished");
    expect(files.get("avatar/logo.png")).toEqual(png);
    expect(files.get(`uploads${upload.url.slice("/uploads".length)}`)).toEqual(png);
    expect(strFromU8(files.get(`uploads${text.url.slice("/uploads".length)}`)!)).toBe("hello");
    expect(files.get(`lfs-objects/${lfs.oid}`)).toEqual(lfs.bytes);
    expect(JSON.parse(strFromU8(files.get("lfs-objects.json")!))).toEqual({ [lfs.oid]: [null] });
    // A project without LFS objects has no lfs-objects.json; one without uploads no uploads/.
    const bare = await w.project({ maintainers: [maintainer] });
    const { files: bareFiles } = await exported(w, maintainer, bare.id);
    expect([...bareFiles.keys()].filter((p) => p.startsWith("uploads/") || p.startsWith("lfs-objects") || p.startsWith("avatar/"))).toEqual([]);
  });

  it("takes the LFS objects of fork ancestors (all_lfs_objects), and leaves out a row whose bytes are gone", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const api = w.as(maintainer);
    const lfs = await lfsContent();
    expect((await putObject(project, maintainer, lfs.oid, lfs.size, lfs.bytes)).status).toBe(200);
    const fork = (await (await api.post(`/projects/${project.id}/fork`, { json: { path: `fork-${project.path}`, name: `fork-${project.path}` } })).json()) as Json;
    const own = await lfsContent();
    expect((await putObject({ ...project, id: fork.id, fullPath: fork.path_with_namespace } as never, maintainer, own.oid, own.size, own.bytes)).status).toBe(200);
    const gone = (await (await api.post(`/projects/${fork.id}/uploads`, { multipart: attach("gone.txt", "x", "text/plain") })).json()) as Json;
    const [row] = await w.db((db) => db.select().from(uploads).where(eq(uploads.modelId, fork.id)));
    await (env as unknown as Bindings).BLOBS.delete(row.r2Key);

    const { job, files } = await exported(w, maintainer, fork.id);
    expect(job.status).toBe("finished");
    expect(files.get(`lfs-objects/${lfs.oid}`)).toEqual(lfs.bytes);
    expect(files.get(`lfs-objects/${own.oid}`)).toEqual(own.bytes);
    expect(files.has(`uploads${gone.url.slice("/uploads".length)}`)).toBe(false);
    const links = await w.db((db) => db.select().from(lfsObjectsProjects).where(eq(lfsObjectsProjects.projectId, fork.id)));
    expect(links).toHaveLength(1);
  });

  it("streams an archive larger than one R2 part as a multipart upload, byte for byte", { timeout: 60_000 }, async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const big = randomBytes(PART_SIZE + 1024 * 1024);
    const oid = await sha256(big);
    expect((await putObject(project, maintainer, oid, big.length, big)).status).toBe(200);
    const { job, size, files } = await exported(w, maintainer, project.id);
    expect(job.status).toBe("finished");
    expect(size).toBeGreaterThan(PART_SIZE);
    expect((await (env as unknown as Bindings).BLOBS.head(job.r2Key!))?.size).toBe(size);
    expect(await sha256(files.get(`lfs-objects/${oid}`)!)).toBe(oid);
  });
});
