import type { Executor } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { getBlobZdata, listRefs } from "../shared/git";
import { PackWriter } from "../shared/git/pack/pack";
import { allProjectObjects } from "../shared/lfs/read";
import { blockedReason } from "../shared/webhooks/url_guard";
import { loadSettings } from "../shared/settings/load";
// The pack of a bundle is what a clone of every ref fetches: the same object walk as upload-pack.
import { planFetch } from "../shared/git_http/upload_pack";
import { readPackRows } from "../shared/git/store/reachable";
import { EXPORT_VERSION, exportTree } from "../entities/project_export";
import * as q from "./queries";
import { leaseTransferJob } from "../shared/transfer_jobs";
import { R2ArchiveSink, TarGzWriter } from "./stream";

const READ_CHUNK = 500;
const encoder = new TextEncoder();

/**
 * `project.bundle` (git-bundle(5), v2): the refs, HEAD first, then a pack of every object they reach,
 * which `git clone project.bundle` reads. Null for an empty repository (GitLab leaves the file out).
 */
export async function repositoryBundle(db: Executor, project: { id: number; poolId: number | null; defaultBranch: string | null }): Promise<Uint8Array[] | null> {
  const refs = (await listRefs(db, project.id)).filter((r) => r.name.startsWith("refs/heads/") || r.name.startsWith("refs/tags/"));
  if (refs.length === 0) return null;
  const poolId = project.poolId ?? project.id;
  const head = refs.find((r) => r.name === `refs/heads/${project.defaultBranch}`);
  const lines = [...(head ? [`${head.target} HEAD`] : []), ...refs.map((r) => `${r.target} ${r.name}`)];
  const plan = await planFetch(db, { projectId: project.id, poolId, defaultBranch: project.defaultBranch }, {
    wants: refs.map((r) => r.target),
    haves: [],
    done: true,
    includeTag: false,
    noProgress: true,
    unsupported: null,
  });
  if (plan.kind !== "pack") return null;
  const out: Uint8Array[] = [encoder.encode(`# v2 git bundle\n${lines.join("\n")}\n\n`)];
  const writer = new PackWriter();
  out.push(writer.header(plan.oids.length));
  for (let i = 0; i < plan.oids.length; i += READ_CHUNK) {
    const chunk = plan.oids.slice(i, i + READ_CHUNK);
    const rows = await readPackRows(db, poolId, chunk);
    for (const oid of chunk) {
      const row = rows.get(oid);
      // A blob over 1 MiB has its zlib body in R2 (docs/git.md, "Tables").
      const zdata = row?.zdata ?? (row?.r2Key ? await getBlobZdata(row.r2Key) : null);
      if (!row || !zdata) throw new Error(`project.bundle: object ${oid} is missing from the store`);
      out.push(writer.entry(row.type, row.size, zdata));
    }
  }
  out.push(writer.trailer());
  return out;
}

/**
 * The export archive (tar.gz in GitLab's layout) written into R2 at `key` as it is made: VERSION, the
 * tree, `uploads/<secret>/<filename>` (UploadsManager), `lfs-objects/<oid>` with `lfs-objects.json`
 * (LfsSaver: oid → repository types), `avatar/<filename>` (AvatarSaver), then project.bundle. Uploads and LFS objects are streamed from
 * their R2 objects. False when the project is gone. A missing upload or LFS object (its row without
 * its bytes) is left out, as GitLab's savers skip a file that is not there.
 */
export async function writeArchive(db: Executor, bucket: R2Bucket, projectId: number, key: string): Promise<boolean> {
  const data = await q.exportRelations(db, projectId);
  if (!data) return false;
  const [uploadRows, lfsRows] = await Promise.all([q.projectUploads(db, projectId), allProjectObjects(db, projectId)]);
  const sink = new R2ArchiveSink(bucket, key);
  const tar = new TarGzWriter(sink, Math.floor(Date.now() / 1000));
  try {
    await tar.file("VERSION", [encoder.encode(EXPORT_VERSION)]);
    for (const file of exportTree(data)) {
      const text = file.lines === null ? JSON.stringify(file.json) : file.lines.map((line) => JSON.stringify(line)).join("\n") + (file.lines.length ? "\n" : "");
      await tar.file(file.path, [encoder.encode(text)]);
    }
    for (const upload of uploadRows) {
      const object = await bucket.get(upload.r2Key);
      if (object) await tar.stream(`uploads/${upload.path}`, object.size, object.body);
    }
    // AvatarSaver: the project's avatar (AvatarUploader's path, also its R2 key) as `avatar/<filename>`.
    const avatar = /^\/uploads\/-\/system\/project\/avatar\/\d+\/([^/]+)$/.exec(data.project.avatarUrl ?? "");
    if (avatar) {
      const object = await bucket.get(data.project.avatarUrl!.slice(1));
      if (object) await tar.stream(`avatar/${avatar[1]}`, object.size, object.body);
    }
    const lfsJson: Record<string, (number | null)[]> = {};
    for (const lfs of lfsRows) {
      const object = await bucket.get(lfs.file);
      if (!object) continue;
      await tar.stream(`lfs-objects/${lfs.oid}`, object.size, object.body);
      lfsJson[lfs.oid] = [lfs.repositoryType];
    }
    if (lfsRows.length > 0) await tar.file("lfs-objects.json", [encoder.encode(JSON.stringify(lfsJson))]);
    const bundle = await repositoryBundle(db, data.project);
    if (bundle) await tar.file("project.bundle", bundle);
    await tar.close();
  } catch (error) {
    await sink.abort();
    throw error;
  }
  return true;
}

/**
 * The after-export upload (Gitlab::ImportExport::AfterExportStrategies::WebUploadStrategy): PUT or POST
 * of the archive with `Content-Type: application/gzip`, through the same SSRF guard as webhooks. Returns
 * the error to record, or null.
 */
export async function uploadArchive(db: Executor, bucket: R2Bucket, url: string, method: string, key: string): Promise<string | null> {
  const settings = await loadSettings(db);
  const blocked = blockedReason(url, {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  });
  if (blocked) return `URL is blocked: ${blocked}`;
  const object = await bucket.get(key);
  if (!object) return "Error uploading the project export: the archive is no longer stored";
  try {
    // Streamed from R2; FixedLengthStream sends its Content-Length (object storage refuses chunked PUTs).
    const body = new FixedLengthStream(object.size);
    const piped = object.body.pipeTo(body.writable).catch(() => undefined);
    const res = await fetch(url.trim(), { method, body: body.readable, headers: { "Content-Type": "application/gzip" }, redirect: "manual", signal: AbortSignal.timeout(60_000) });
    await res.body?.cancel();
    await piped;
    if (!res.ok) return `Error uploading the project export to ${new URL(url).host}: ${res.status} ${res.statusText}`.trim();
    return null;
  } catch (error) {
    return `Error uploading the project export: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export const archiveKey = (projectId: number, jobId: number) => `exports/project-${projectId}/${jobId}.tar.gz`;

/**
 * Runs one export job (the queue consumer's work): takes its lease (a redelivery of a finished or held
 * job does nothing), builds the archive, stores it in R2, uploads it when asked, and records the outcome.
 * A refused or failed upload marks the job `failed` with its error, so the status shows it.
 */
export async function runExport(db: Executor, env: Bindings, jobId: number, leaseSeconds = 600): Promise<"done" | "skipped"> {
  const job = await leaseTransferJob(db, jobId, "export", leaseSeconds);
  if (!job) return "skipped";
  const key = archiveKey(job.projectId, job.id);
  if (!(await writeArchive(db, env.BLOBS, job.projectId, key))) {
    await q.failJob(db, job.id, "The project no longer exists");
    return "done";
  }
  const uploadError = job.uploadUrl ? await uploadArchive(db, env.BLOBS, job.uploadUrl, job.uploadMethod ?? "PUT", key) : null;
  if (uploadError) await q.failJob(db, job.id, uploadError);
  else await q.finishJob(db, job.id, key, null);
  return "done";
}
