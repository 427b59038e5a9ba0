// Online garbage collection of the registry (GitLab's registry, docs-gitlab/db/online-garbage-collection.md;
// here docs/container_registry.md, "Garbage collection"). The triggers of migration 0057 queue, in the
// transaction that removed a reference, the manifests and blobs that may have lost their last one; the
// sweep takes the reviews queued more than the review delay ago, one transaction each, re-checks them
// and deletes what nothing references any more, or drops the review.
import { withDb, type Database } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import * as q from "./queries";
import { blobKey } from "./services";

/** GitLab's registry reviews a queued manifest or blob 24 hours after it was queued (`gc.reviewafter`). */
export const DEFAULT_REVIEW_DELAY_MS = 24 * 3600 * 1000;

const UNITS: Record<string, number> = { h: 3600e3, m: 60e3, s: 1e3, ms: 1 };

/**
 * `REGISTRY_GC_REVIEW_DELAY`: a Go duration as the registry's `reviewafter` takes it (`24h`, `90m`,
 * `1h30m`, `45s`, `0`). Unset means 24h; a value that does not parse is reported and read as 24h, the
 * safe side (a shorter delay only frees space sooner).
 */
export function reviewDelayMs(env: Pick<Bindings, "REGISTRY_GC_REVIEW_DELAY">): number {
  const text = env.REGISTRY_GC_REVIEW_DELAY?.trim();
  if (text === undefined || text === "") return DEFAULT_REVIEW_DELAY_MS;
  if (text === "0") return 0;
  if (/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(text)) {
    let total = 0;
    for (const [, value, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) total += Number(value) * UNITS[unit];
    return Math.round(total);
  }
  console.error(`registry: REGISTRY_GC_REVIEW_DELAY ${JSON.stringify(text)} is not a duration such as 24h; using 24h`);
  return DEFAULT_REVIEW_DELAY_MS;
}

/** Reviews of each kind one sweep resolves at most; the consumer queues another sweep when it took that many. */
export const SWEEP_LIMIT = 200;

export type SweepResult = {
  /** Manifests deleted, and manifest reviews dropped because the manifest is referenced again (or gone). */
  manifestsDeleted: number;
  manifestReviewsDropped: number;
  /** Blobs whose R2 object was deleted (no repository links them any more), and links deleted. */
  blobsDeleted: string[];
  linksDeleted: number;
  blobReviewsDropped: number;
  /** Reviews left for a later run: a lock held by a request, or a failure (logged). */
  skipped: number;
  /** Whether a kind hit SWEEP_LIMIT without a failure: more may be due, and the consumer queues another sweep. */
  full: boolean;
};

/** SQLSTATE 55P03: a NOWAIT lock a request holds. */
const lockBusy = (error: unknown) => {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if ((e as { code?: unknown }).code === "55P03") return true;
  return false;
};

/**
 * One sweep: the manifests first (deleting one queues its blobs, which the same sweep takes when the
 * delay is 0), then the blobs. A blob's object is deleted from R2 before its rows; when the transaction
 * then fails, the rows and the review stay and the next sweep finishes the work.
 */
export async function sweepRegistry(env: Bindings, bucket: R2Bucket = env.BLOBS, now = new Date(), limit = SWEEP_LIMIT): Promise<SweepResult> {
  const cutoff = new Date(now.getTime() - reviewDelayMs(env));
  return withDb(env, async (db) => {
    const result: SweepResult = { manifestsDeleted: 0, manifestReviewsDropped: 0, blobsDeleted: [], linksDeleted: 0, blobReviewsDropped: 0, skipped: 0, full: false };
    const skipManifests: number[] = [];
    let taken = 0;
    for (; taken < limit; taken++) {
      const current: { id: number | null } = { id: null };
      try {
        const outcome = await db.transaction(async (tx) => {
          const id = (current.id = await q.takeManifestReview(tx, cutoff, skipManifests));
          if (id === null) return "none";
          const manifest = await q.lockManifest(tx, id);
          if (manifest && !(await q.manifestReferenced(tx, manifest))) {
            await q.collectManifest(tx, id);
            return "deleted";
          }
          await q.dropManifestReview(tx, id);
          return "dropped";
        });
        if (outcome === "none") break;
        if (outcome === "deleted") result.manifestsDeleted++;
        else result.manifestReviewsDropped++;
      } catch (error) {
        const id = current.id;
        if (id === null) throw error;
        skipManifests.push(id);
        result.skipped++;
        if (!lockBusy(error)) console.error(`registry gc: manifest ${id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // Full only when nothing failed: a sweep whose reviews fail (R2 down) must not queue the next at once.
    result.full = taken >= limit && skipManifests.length === 0;
    const skipBlobs: string[] = [];
    for (taken = 0; taken < limit; taken++) {
      const current: { digest: string | null } = { digest: null };
      try {
        const outcome = await sweepBlob(db, bucket, cutoff, skipBlobs, (d) => (current.digest = d));
        if (outcome === null) break;
        if (outcome.deleted) result.blobsDeleted.push(outcome.digest);
        else result.blobReviewsDropped++;
        result.linksDeleted += outcome.links;
      } catch (error) {
        const digest = current.digest;
        if (digest === null) throw error;
        skipBlobs.push(digest);
        result.skipped++;
        if (!lockBusy(error)) console.error(`registry gc: blob ${digest}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    result.full ||= taken >= limit && skipBlobs.length === 0;
    return result;
  });
}

/**
 * One blob review: the links no manifest of their repository references are deleted; when no link is
 * left, the object goes from R2 first, then the rows. A blob referenced again (a manifest pushed
 * meanwhile) keeps its links and object, and its review is dropped. An upload or a mount moves the review
 * (`holdBlob`) before it reads whether the object exists, so a blob pushed within the delay is not taken.
 */
async function sweepBlob(db: Database, bucket: R2Bucket, cutoff: Date, skip: string[], taking: (digest: string) => void) {
  return db.transaction(async (tx) => {
    const digest = await q.takeBlobReview(tx, cutoff, skip);
    if (digest === null) return null;
    taking(digest);
    const links = await q.lockBlobLinks(tx, digest);
    const unreferenced = links.filter((l) => !l.referenced).map((l) => l.repositoryId);
    const deleted = unreferenced.length === links.length;
    if (deleted) await bucket.delete(blobKey(digest));
    await q.collectBlobLinks(tx, digest, unreferenced);
    return { digest, deleted, links: unreferenced.length };
  });
}
