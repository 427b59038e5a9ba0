// The repository of an import: `project.bundle`'s pack into the object store (the objects keep their
// ids, so every commit id stays what it was), the commit index, then the bundle's branches and tags.
import type { Database } from "../kernel/db";
import {
  compareAndSwapRef,
  decodeCommit,
  decodeTag,
  indexCommits,
  initializeDefaultBranch,
  isValidRefName,
  readObjects,
  storeSource,
  writeObjects,
  type Commit,
  type RawObject,
} from "../shared/git";
import { PackResolver, readPack, type ResolvedObject } from "../shared/git/pack/pack";
import { ByteReader } from "../shared/git/pack/reader";
import { topoOrder } from "../shared/git/pure/graph";
import { ArchiveError, type Bundle } from "./archive";

/** Object bytes held before one batch of INSERTs (as receive-pack does). */
const FLUSH_BYTES = 8 * 1024 * 1024;
const INDEX_CHUNK = 200;

/**
 * Writes the bundle's objects into `poolId`, indexes its commits and creates its branches and tags
 * (no push events: GitLab's import runs no pipelines and fires no push hooks). Idempotent: objects and
 * index rows are inserted `ON CONFLICT DO NOTHING` and a ref that already points where the bundle says
 * is left alone, so a redelivered import finishes what a dead consumer began. Returns the branch HEAD
 * names (the default branch), or null when the bundle has no branch.
 */
export async function restoreRepository(
  db: Database,
  project: { id: number; poolId: number },
  bundle: Bundle,
  preferredBranch: string | null,
): Promise<string | null> {
  const { poolId } = project;
  const commits: { oid: string; commit: Commit }[] = [];
  const tags = new Map<string, { object: string; type: string }>();
  const seen = new Set<string>();
  let pending = new Map<string, RawObject>();
  let pendingBytes = 0;
  const flush = async () => {
    if (pending.size === 0) return;
    await writeObjects(db, poolId, [...pending.values()]);
    pending = new Map();
    pendingBytes = 0;
  };
  const accept = async (object: ResolvedObject) => {
    seen.add(object.oid);
    if (object.type === "commit") commits.push({ oid: object.oid, commit: decodeCommit(object.body) });
    else if (object.type === "tag") {
      const tag = decodeTag(object.body);
      tags.set(object.oid, { object: tag.object, type: tag.type });
    }
    pending.set(object.oid, { oid: object.oid, type: object.type, body: object.body });
    pendingBytes += object.body.length;
    if (pendingBytes >= FLUSH_BYTES) await flush();
  };
  // Bases the resolver no longer caches come back from the pending batch or the store.
  const resolver = new PackResolver(async (oid) => pending.get(oid) ?? (await readObjects(db, poolId, [oid])).get(oid) ?? null);
  for await (const entry of readPack(new ByteReader(bundle.pack))) {
    const object = await resolver.add(entry);
    if (object) await accept(object);
  }
  for await (const object of resolver.finish()) await accept(object);
  await flush();

  const ordered = topoOrder(commits);
  for (let i = 0; i < ordered.length; i += INDEX_CHUNK) {
    await indexCommits(db, poolId, ordered.slice(i, i + INDEX_CHUNK), storeSource(db, poolId));
  }

  const refs = bundle.refs.filter((r) => isValidRefName(r.name) && (r.name.startsWith("refs/heads/") || r.name.startsWith("refs/tags/")));
  const missing = refs.find((r) => !seen.has(r.target));
  if (missing) throw new ArchiveError(`project.bundle: ${missing.name} points at ${missing.target}, which the bundle lacks`);
  const peel = (oid: string): string | null => {
    let current = oid;
    for (let depth = 0; depth < 10; depth++) {
      const tag = tags.get(current);
      if (!tag) return null;
      if (tag.type === "commit") return tag.object;
      if (tag.type !== "tag") return null;
      current = tag.object;
    }
    return null;
  };
  const branches = refs.filter((r) => r.name.startsWith("refs/heads/"));
  let picked: string | null = null;
  await db.transaction(async (tx) => {
    for (const ref of refs) {
      const created = await compareAndSwapRef(tx, project.id, ref.name, null, ref.target, tags.has(ref.target) ? peel(ref.target) : null);
      // Already there (a redelivery): it must point where the bundle says.
      if (!created) await compareAndSwapRef(tx, project.id, ref.name, ref.target, ref.target, tags.has(ref.target) ? peel(ref.target) : null);
    }
    if (branches.length === 0) return;
    // HEAD: the exported default branch when the bundle has it, else the branch HEAD points at, else
    // main, master, the first (Gitaly's FindDefaultBranchName).
    const names = branches.map((b) => b.name.slice("refs/heads/".length));
    const atHead = bundle.head ? branches.find((b) => b.target === bundle.head)?.name.slice("refs/heads/".length) : undefined;
    const pick = [preferredBranch, atHead, "main", "master"].find((b) => b && names.includes(b)) ?? names[0];
    await initializeDefaultBranch(tx, project.id, pick);
    picked = pick;
  });
  return picked;
}
