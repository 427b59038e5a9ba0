import { unzipSync } from "fflate";
import type { Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { loadSettings } from "../shared/settings/load";
import { contentTypeOf } from "./content_types";
import * as q from "./queries";

/**
 * Publishing a `pages` job (Projects::UpdatePagesService, GitLab 15.4: the job named `pages`, its
 * artifacts' `public/` directory). The files are written under a new deployment's own R2 prefix, and
 * only when all are written does the project's pointer move to it (`q.switchDeployment`, one row
 * update): a visitor sees the old site or the new one, never a mix. Superseded deployments are deleted
 * afterwards. Idempotent: a job that already has a deployment is not published twice.
 */

/** Files written to R2 at once: a few, so that a large site does not open hundreds of subrequests together. */
const PUT_CONCURRENCY = 8;
/** A Worker may make at most 1,000 subrequests per invocation on the free plan (10,000 paid); a site above this fails. */
export const MAX_FILES = 900;

export type PublishResult =
  | { status: "published"; deploymentId: number; files: number }
  | { status: "skipped"; reason: string }
  | { status: "failed"; reason: string };

export async function publishPagesJob(env: Bindings, db: Database, jobId: number): Promise<PublishResult> {
  const job = await q.publishableJob(db, jobId);
  if (!job) return { status: "skipped", reason: "not a succeeded pages job with artifacts" };
  const earlier = await q.claimJobDeployments(db, jobId);
  if (earlier.current) return { status: "skipped", reason: "already published" };
  await emptyPrefixes(env, earlier.stale);
  const object = await env.BLOBS.get(job.r2Key);
  if (!object) return { status: "failed", reason: "artifacts archive missing" };
  const settings = await loadSettings(db);
  const maxBytes = Number(settings.max_pages_size) > 0 ? Number(settings.max_pages_size) * 1024 * 1024 : Infinity;

  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(new Uint8Array(await object.arrayBuffer()), { filter: (f) => f.name.startsWith("public/") && !f.name.endsWith("/") && f.originalSize <= maxBytes });
  } catch {
    return { status: "failed", reason: "artifacts archive is not a zip" };
  }
  const files = Object.entries(entries)
    .map(([name, data]) => ({ path: name.slice("public/".length), data }))
    .filter((f) => f.path !== "" && f.path.split("/").every((s) => s !== "" && s !== "." && s !== ".."));
  // UpdatePagesService: "public/ folder not found" (the job is done; the site stays as it was).
  if (files.length === 0) return { status: "failed", reason: "public/ folder not found" };
  if (files.length > MAX_FILES) return { status: "failed", reason: `more than ${MAX_FILES} files` };
  const size = files.reduce((n, f) => n + f.data.length, 0);
  if (size > maxBytes) return { status: "failed", reason: "artifacts for pages are too large" };

  // The row first, so that files of a publish that dies half-way are found (and deleted) by the next one.
  const prefix = `pages/${job.projectId}/${crypto.randomUUID()}/`;
  const deployment = await q.createDeployment(db, { projectId: job.projectId, ciBuildId: job.id, r2Prefix: prefix, fileCount: files.length, size });
  const names = new Set(files.map((f) => f.path));
  const queue = [...files];
  const put = async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const gzip = f.path.endsWith(".gz") && names.has(f.path.slice(0, -3));
      await env.BLOBS.put(prefix + f.path, f.data, {
        // A `.gz` variant keeps the content type of the file it compresses (served with Content-Encoding: gzip).
        httpMetadata: { contentType: contentTypeOf(gzip ? f.path.slice(0, -3) : f.path) },
        customMetadata: names.has(`${f.path}.gz`) ? { gz: "1" } : undefined,
      });
    }
  };
  // A failed write throws: the queue's retry finds this deployment not current and deletes it with its files.
  await Promise.all(Array.from({ length: PUT_CONCURRENCY }, put));
  const { switched, stale } = await q.switchDeployment(db, job.projectId, deployment.id);
  // A lost switch (a newer job's site is current) returns this deployment's own prefix among the stale ones.
  await emptyPrefixes(env, stale);
  return switched ? { status: "published", deploymentId: deployment.id, files: files.length } : { status: "skipped", reason: "a newer deployment is current" };
}

/** Pages::DeleteService: unpublishes the site and deletes its files. */
export async function unpublishPages(env: Bindings, db: Database, projectId: number): Promise<void> {
  await emptyPrefixes(env, await q.unpublish(db, projectId));
}

/** Deletes every R2 object under the prefixes (after the pointer has left them). */
export async function emptyPrefixes(env: Bindings, prefixes: string[]): Promise<void> {
  for (const prefix of prefixes) {
    let cursor: string | undefined;
    do {
      const listed = await env.BLOBS.list({ prefix, cursor, limit: 1000 });
      if (listed.objects.length) await env.BLOBS.delete(listed.objects.map((o) => o.key));
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
  }
}
