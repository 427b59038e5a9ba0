import { Gzip } from "fflate";
import type { Executor } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { listRefs } from "../shared/git";
import { PackWriter } from "../shared/git/pack/pack";
import { TAR_END, tarEntryHeader, tarPadding } from "../shared/git/pure/tar";
import { blockedReason } from "../shared/webhooks/url_guard";
import { loadSettings } from "../shared/settings/load";
// The pack of a bundle is what a clone of every ref fetches: the same object walk as upload-pack.
import { planFetch } from "../git_http/upload_pack";
import { readPackRows } from "../git_http/queries";
import { EXPORT_VERSION, exportTree } from "./entities";
import * as q from "./queries";
import { leaseTransferJob } from "../shared/transfer_jobs";

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
      if (!row || !row.zdata) throw new Error(`project.bundle: object ${oid} is missing from the store`);
      out.push(writer.entry(row.type, row.size, row.zdata));
    }
  }
  out.push(writer.trailer());
  return out;
}

/** One tar member: header, body, padding. */
function tarFile(path: string, body: Uint8Array[], mtime: number): Uint8Array[] {
  const size = body.reduce((n, b) => n + b.length, 0);
  return [tarEntryHeader({ path, kind: "file", size }, mtime), ...body, tarPadding(size)];
}

/** The export archive (tar.gz in GitLab's layout), built in memory: VERSION, the tree, project.bundle. */
export async function buildArchive(db: Executor, projectId: number): Promise<Uint8Array | null> {
  const data = await q.exportRelations(db, projectId);
  if (!data) return null;
  const mtime = Math.floor(Date.now() / 1000);
  const members: Uint8Array[] = [...tarFile("VERSION", [encoder.encode(EXPORT_VERSION)], mtime)];
  for (const file of exportTree(data)) {
    const text = file.lines === null ? JSON.stringify(file.json) : file.lines.map((line) => JSON.stringify(line)).join("\n") + (file.lines.length ? "\n" : "");
    members.push(...tarFile(file.path, [encoder.encode(text)], mtime));
  }
  const bundle = await repositoryBundle(db, data.project);
  if (bundle) members.push(...tarFile("project.bundle", bundle, mtime));
  members.push(TAR_END);

  const compressed: Uint8Array[] = [];
  const gzip = new Gzip({ level: 6 }, (chunk) => compressed.push(chunk));
  for (let i = 0; i < members.length; i++) gzip.push(members[i], i === members.length - 1);
  const total = compressed.reduce((n, c) => n + c.length, 0);
  const archive = new Uint8Array(total);
  let at = 0;
  for (const c of compressed) {
    archive.set(c, at);
    at += c.length;
  }
  return archive;
}

/**
 * The after-export upload (Gitlab::ImportExport::AfterExportStrategies::WebUploadStrategy): PUT or POST
 * of the archive with `Content-Type: application/gzip`, through the same SSRF guard as webhooks. Returns
 * the error to record, or null.
 */
export async function uploadArchive(db: Executor, url: string, method: string, archive: Uint8Array): Promise<string | null> {
  const settings = await loadSettings(db);
  const blocked = blockedReason(url, {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  });
  if (blocked) return `URL is blocked: ${blocked}`;
  try {
    const res = await fetch(url.trim(), { method, body: archive, headers: { "Content-Type": "application/gzip" }, redirect: "manual", signal: AbortSignal.timeout(60_000) });
    await res.body?.cancel();
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
  const archive = await buildArchive(db, job.projectId);
  if (!archive) {
    await q.failJob(db, job.id, "The project no longer exists");
    return "done";
  }
  const key = archiveKey(job.projectId, job.id);
  await env.BLOBS.put(key, archive, { httpMetadata: { contentType: "application/gzip" } });
  const uploadError = job.uploadUrl ? await uploadArchive(db, job.uploadUrl, job.uploadMethod ?? "PUT", archive) : null;
  if (uploadError) await q.failJob(db, job.id, uploadError);
  else await q.finishJob(db, job.id, key, null);
  return "done";
}
