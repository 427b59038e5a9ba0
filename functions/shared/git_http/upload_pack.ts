// upload-pack over protocol v2 (gitprotocol-v2(5)): the capability advertisement, `ls-refs`, and
// `fetch` with want/have/done negotiation. Object selection uses the commit index (one statement for
// both commit walks), trees are read level by level in batches, and the pack streams from the stored
// zlib bodies (undeltified entries, no recompression) on its own database connection.
import { createDb, type Executor } from "../../kernel/db";
import type { Bindings } from "../../kernel/env";
import { listRefs, streamBlobZdata, type Ref } from "../git";
import { MissingObjectError, objectTypes, peelTags, readPackRows, walkCommits, walkTrees, type Selected, type WalkedCommit } from "../git/store/reachable";
import { shallowWalk } from "../git/store/shallow";
import { PackWriter } from "../git/pack/pack";
import { DELIM, FLUSH, MAX_SIDEBAND_DATA, pkt, sideband } from "../git/pack/pktline";
import * as q from "./queries";

export const AGENT = "agent=git/edgeforge";
const ZERO_OID = "0000000000000000000000000000000000000000";
const READ_CHUNK = 1000;

/** The v2 capability advertisement (`GET info/refs?service=git-upload-pack` with `Git-Protocol: version=2`). */
export function v2Advertisement(): Uint8Array[] {
  return [pkt("version 2\n"), pkt(`${AGENT}\n`), pkt("ls-refs=unborn\n"), pkt("fetch=shallow\n"), pkt("server-option\n"), pkt("object-format=sha1\n"), FLUSH];
}

export type Repository = { projectId: number; poolId: number; defaultBranch: string | null };

/** `ls-refs`: HEAD first (a symref, or `unborn` when asked), then every ref in git's order. */
export async function lsRefs(db: Executor, repo: Repository, args: string[]): Promise<Uint8Array[]> {
  const symrefs = args.includes("symrefs");
  const peel = args.includes("peel");
  const unborn = args.includes("unborn");
  const prefixes = args.filter((a) => a.startsWith("ref-prefix ")).map((a) => a.slice(11));
  const matches = (name: string) => prefixes.length === 0 || prefixes.some((p) => name.startsWith(p));
  const refs = await listRefs(db, repo.projectId);
  const out: Uint8Array[] = [];
  if (matches("HEAD")) {
    const headName = `refs/heads/${repo.defaultBranch ?? "main"}`;
    const head = refs.find((r) => r.name === headName);
    const target = symrefs ? ` symref-target:${headName}` : "";
    if (head) out.push(pkt(`${head.target} HEAD${target}\n`));
    else if (unborn) out.push(pkt(`unborn HEAD${target}\n`));
  }
  for (const ref of refs) {
    if (!matches(ref.name)) continue;
    out.push(pkt(`${ref.target} ${ref.name}${peel && ref.peeled ? ` peeled:${ref.peeled}` : ""}\n`));
  }
  out.push(FLUSH);
  return out;
}

/** The v0 ref advertisement of receive-pack: refs with the capabilities on the first line. */
export async function receivePackAdvertisement(db: Executor, repo: Repository, capabilities: string): Promise<Uint8Array[]> {
  const refs = await listRefs(db, repo.projectId);
  const out: Uint8Array[] = [pkt("# service=git-receive-pack\n"), FLUSH];
  if (refs.length === 0) out.push(pkt(`${ZERO_OID} capabilities^{}\0${capabilities}\n`));
  refs.forEach((ref, i) => out.push(pkt(`${ref.target} ${ref.name}${i === 0 ? `\0${capabilities}` : ""}\n`)));
  out.push(FLUSH);
  return out;
}

export type FetchArgs = {
  wants: string[];
  haves: string[];
  done: boolean;
  includeTag: boolean;
  noProgress: boolean;
  /** The client's shallow boundary (`shallow <oid>`) and `deepen <n>`. */
  shallow?: string[];
  depth?: number | null;
  /** `deepen-relative`: the depth counts from the client's shallow boundary. */
  relative?: boolean;
  unsupported: string | null;
};

export function parseFetchArgs(args: string[]): FetchArgs {
  const parsed: FetchArgs = { wants: [], haves: [], done: false, includeTag: false, noProgress: false, shallow: [], depth: null, unsupported: null };
  for (const arg of args) {
    if (arg.startsWith("want ")) parsed.wants.push(arg.slice(5).toLowerCase());
    else if (arg.startsWith("have ")) parsed.haves.push(arg.slice(5).toLowerCase());
    else if (arg === "done") parsed.done = true;
    else if (arg === "include-tag") parsed.includeTag = true;
    else if (arg === "no-progress") parsed.noProgress = true;
    else if (arg === "thin-pack" || arg === "ofs-delta" || arg === "sideband-all" || arg === "wait-for-done") continue;
    else if (/^shallow [0-9a-fA-F]{40}$/.test(arg)) parsed.shallow!.push(arg.slice(8).toLowerCase());
    else if (/^deepen \d+$/.test(arg)) {
      // upload-pack.c: "deepen 0" is refused; larger than INFINITE_DEPTH counts as it.
      const depth = Number(arg.slice(7));
      if (depth <= 0) parsed.unsupported ??= "deepen 0";
      else parsed.depth = Math.min(depth, 0x7fffffff);
    } else if (arg === "deepen-relative") parsed.relative = true;
    else if (/^(shallow|deepen|deepen-since|deepen-not|deepen-relative|filter|want-ref|packfile-uris) ?/.test(arg)) parsed.unsupported ??= arg.split(" ")[0];
  }
  return parsed;
}

/** Thrown before any pack byte is sent: answered as `ERR <message>` (git prints "remote error"). */
export class FetchError extends Error {}

export type FetchPlan =
  | { kind: "acks"; lines: Uint8Array[] }
  | { kind: "pack"; preamble: Uint8Array[]; oids: string[] };

/**
 * `fetch`: without `done`, acknowledges the common commits and, when there are some, declares itself
 * `ready` and sends the pack at once (stateless HTTP has no later round to wait for); with `done`, the
 * pack. The pack holds what the wants reach and the common commits do not.
 */
export async function planFetch(db: Executor, repo: Repository, args: FetchArgs): Promise<FetchPlan> {
  try {
    return await plan(db, repo, args);
  } catch (error) {
    // A tag or tree the walk needs is not in the store: answered as ERR before any pack byte.
    if (error instanceof MissingObjectError) throw new FetchError(`upload-pack: ${error.message}`);
    throw error;
  }
}

async function plan(db: Executor, repo: Repository, args: FetchArgs): Promise<FetchPlan> {
  if (args.unsupported) throw new FetchError(`upload-pack: ${args.unsupported} is not supported by this server`);
  const wants = [...new Set(args.wants)];
  if (wants.length === 0) throw new FetchError("upload-pack: no wants");
  const selected = await selectWants(db, repo.poolId, wants);

  const common = [...(await q.knownCommits(db, repo.poolId, [...new Set(args.haves)]))];
  const preamble: Uint8Array[] = [];
  if (!args.done) {
    const acks = common.map((oid) => pkt(`ACK ${oid}\n`));
    preamble.push(pkt("acknowledgments\n"), ...(acks.length ? acks : [pkt("NAK\n")]));
    if (common.length === 0) return { kind: "acks", lines: [...preamble, FLUSH] };
    preamble.push(pkt("ready\n"), DELIM);
  }

  // A shallow fetch (`deepen`, or a shallow client): shallow-info comes before the pack (gitprotocol-v2).
  const shallowFetch = (args.depth ?? null) !== null || (args.shallow?.length ?? 0) > 0;
  const { commits, edgeTrees } = shallowFetch
    ? await shallowInfo(db, repo, args, selected.commits, common, preamble)
    : await walkCommits(db, repo.poolId, selected.commits, common);
  const included = new Set(commits.map((c) => c.oid));
  if (args.includeTag) {
    const refs: Ref[] = await listRefs(db, repo.projectId, "refs/tags/");
    const chained = refs.filter((r) => r.peeled && included.has(r.peeled) && !selected.tags.includes(r.target)).map((r) => r.target);
    const extra = { tags: [] as string[], commits: [] as string[], trees: [] as string[], blobs: [] as string[] };
    await peelTags(db, repo.poolId, chained, extra);
    selected.tags.push(...extra.tags);
  }
  const oids = await packOids(db, repo.poolId, selected, { commits, edgeTrees });
  preamble.push(pkt("packfile\n"));
  return { kind: "pack", preamble, oids };
}

/** The wanted objects by type, annotated tags peeled into what they point at; an unknown one is FetchError. */
export async function selectWants(db: Executor, poolId: number, wants: string[]): Promise<Selected> {
  const types = await objectTypes(db, poolId, wants);
  const selected: Selected = { tags: [], commits: [], trees: [], blobs: [] };
  for (const oid of wants) {
    const type = types.get(oid);
    if (type === undefined) throw new FetchError(`upload-pack: not our ref ${oid}`);
    if (type === 1) selected.commits.push(oid);
    else if (type === 2) selected.trees.push(oid);
    else if (type === 3) selected.blobs.push(oid);
  }
  await peelTags(db, poolId, wants.filter((oid) => types.get(oid) === 4), selected);
  return selected;
}

/**
 * Every object a pack must hold: the selected tags, the walked commits, and the trees and blobs under
 * them that the edge commits' trees (what the receiver has) do not hold. Shared by upload-pack and the
 * push mirrors' client (shared/remote_mirrors/push.ts).
 */
export async function packOids(db: Executor, poolId: number, selected: Selected, walked: { commits: WalkedCommit[]; edgeTrees: string[] }): Promise<string[]> {
  const seen = new Set<string>();
  await walkTrees(db, poolId, walked.edgeTrees, seen, null);
  const objects = { trees: [] as string[], blobs: [] as string[] };
  await walkTrees(db, poolId, [...walked.commits.map((c) => c.tree), ...selected.trees], seen, objects);
  for (const blob of selected.blobs) if (!seen.has(blob)) objects.blobs.push(blob);
  return [...new Set([...selected.tags, ...walked.commits.map((c) => c.oid), ...objects.trees, ...objects.blobs])];
}

/**
 * The walk of a shallow fetch (`shared/git/store/shallow.ts`) and its `shallow-info` section: the new
 * boundary (`shallow`), the client's commits that are no longer on it (`unshallow`), then a delimiter.
 * Differs from GitLab: `deepen-since` and `deepen-not` are refused with ERR.
 */
async function shallowInfo(db: Executor, repo: Repository, args: FetchArgs, wants: string[], common: string[], preamble: Uint8Array[]) {
  const walk = await shallowWalk(db, repo.poolId, {
    wants,
    haves: common,
    clientShallow: args.shallow ?? [],
    depth: args.depth ?? null,
    relative: args.relative ?? false,
  });
  preamble.push(pkt("shallow-info\n"));
  for (const oid of walk.shallow) preamble.push(pkt(`shallow ${oid}\n`));
  for (const oid of walk.unshallow) preamble.push(pkt(`unshallow ${oid}\n`));
  preamble.push(DELIM);
  return walk;
}

/** Collects bytes into side-band-64k frames on band 1. */
class Framer {
  private buffer = new Uint8Array(MAX_SIDEBAND_DATA);
  private used = 0;

  *push(bytes: Uint8Array): Generator<Uint8Array> {
    let at = 0;
    while (at < bytes.length) {
      const take = Math.min(bytes.length - at, this.buffer.length - this.used);
      this.buffer.set(bytes.subarray(at, at + take), this.used);
      this.used += take;
      at += take;
      if (this.used === this.buffer.length) yield* this.flush();
    }
  }

  *flush(): Generator<Uint8Array> {
    if (this.used === 0) return;
    yield* sideband(1, this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

/**
 * The response body of a fetch that sends a pack: the preamble, then the pack on band 1, read in
 * chunks of stored rows over a connection of its own (the request's closes when the handler returns).
 */
export async function* packResponse(env: Bindings, poolId: number, preamble: Uint8Array[], oids: string[], progress: boolean): AsyncGenerator<Uint8Array> {
  yield* preamble;
  const { db, pool } = createDb(env);
  try {
    const framer = new Framer();
    if (progress) yield* sideband(2, new TextEncoder().encode(`Enumerating objects: ${oids.length}, done.\n`));
    try {
      for await (const bytes of packBytes(db, poolId, oids)) yield* framer.push(bytes);
    } catch (error) {
      if (!(error instanceof MissingObjectError)) throw error;
      yield* sideband(3, new TextEncoder().encode(`upload-pack: ${error.message}\n`));
      return;
    }
    yield* framer.flush();
    yield FLUSH;
  } finally {
    await pool.end();
  }
}

/**
 * A pack of `oids` from their stored rows, as bytes to send (header, entries, trailer), read 1,000 rows
 * at a time with the next chunk read while this one is sent; large blobs stream from R2. A row that is
 * not there throws MissingObjectError. upload-pack frames it on band 1; push mirrors POST it as it is.
 */
export async function* packBytes(db: Executor, poolId: number, oids: string[]): AsyncGenerator<Uint8Array> {
  const writer = new PackWriter();
  yield writer.header(oids.length);
  let next = oids.length ? readPackRows(db, poolId, oids.slice(0, READ_CHUNK)) : null;
  for (let i = 0; i < oids.length; i += READ_CHUNK) {
    const chunk = oids.slice(i, i + READ_CHUNK);
    const rows = await next!;
    next = i + READ_CHUNK < oids.length ? readPackRows(db, poolId, oids.slice(i + READ_CHUNK, i + 2 * READ_CHUNK)) : null;
    for (const oid of chunk) {
      const row = rows.get(oid);
      if (row?.zdata) yield writer.entry(row.type, row.size, row.zdata);
      else if (row?.r2Key) {
        // A blob over 1 MiB: its zlib body streams from R2 into the pack, never whole in memory.
        const { body } = await streamBlobZdata(row.r2Key);
        yield writer.entryHeader(row.type, row.size);
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          yield writer.body(value);
        }
      } else {
        throw new MissingObjectError(`object ${oid} is missing from the store`);
      }
    }
  }
  yield writer.trailer();
}
