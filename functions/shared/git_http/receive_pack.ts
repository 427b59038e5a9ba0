// receive-pack (gitprotocol-pack(5), v0/v1 over stateless HTTP) with report-status: the commands,
// then the pack, read as it streams in and written to the object store in batches; a connectivity
// check; the commit index for every new commit; then each ref moves by compare-and-swap together with
// its push event (docs/git.md, "Principles", "Refs").
import { zlibSync } from "fflate";
import type { Database } from "../../kernel/db";
import { decodeCommit, decodeTag, decodeTree, indexCommits, isValidRefName, readObjects, storeSource, swapRefWithEvent, type Commit } from "../git";
import { PackError, PackResolver, PackTooLarge, readPack, type ObjectTypeName, type ResolvedObject } from "../git/pack/pack";
import { objectTypes } from "../git/store/reachable";
import { FLUSH, PktError, pkt, readPkt, pktText, sideband } from "../git/pack/pktline";
import { ByteReader, TruncatedInput } from "../git/pack/reader";
import { checkPush, type Caller, type RefUpdate } from "../protected_branches/access";
import { pushRuleViolation } from "../push_rules";
import { PUSH_FORBIDDEN } from "./access";
import { lfsLockViolation } from "./lfs_locks";
import { pushedChanges, pushedFiles } from "../git";
import * as q from "./queries";
import type { Repository } from "./upload_pack";
import { AGENT } from "./upload_pack";

const ZERO_OID = "0000000000000000000000000000000000000000";
const TYPE_CODE: Record<ObjectTypeName, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
/** Object bytes kept in memory before they are written (one INSERT per 500 rows). */
const FLUSH_BYTES = 8 * 1024 * 1024;
const INDEX_CHUNK = 200;

/**
 * What receive-pack advertises. `no-thin`: clients send every delta base (docs/git.md, "Smart HTTP"), so a pack
 * resolves without reading the store.
 */
export const RECEIVE_CAPABILITIES = `report-status delete-refs side-band-64k quiet ofs-delta no-thin push-options object-format=sha1 ${AGENT}`;

/** The outcome of a push: the response body, whether any ref moved (and which: `changes`), and the push options sent. */
export type PushResult = { body: Uint8Array[]; moved: boolean; options: string[]; changes: { ref: string; before: string; after: string }[] };

type Command = { old: string; new: string; ref: string };

type Received = {
  types: Map<string, ObjectTypeName>;
  commits: { oid: string; commit: Commit }[];
  tags: Map<string, { object: string; type: string }>;
  /** The size of each blob the pack holds (the push rule's `max_file_size`). */
  blobSizes: Map<string, number>;
};

/** git's `receive.unpackLimit` default: a pack of fewer objects goes to unpack-objects, else index-pack. */
const UNPACK_LIMIT = 100;

/** git's `strbuf_humanise_bytes` (strictly over a unit, two decimals, rounded as git rounds). */
export function humaniseBytes(bytes: number): string {
  if (bytes > 2 ** 30) return `${Math.floor(bytes / 2 ** 30)}.${String(Math.floor((bytes % 2 ** 30) / 10737419)).padStart(2, "0")} GiB`;
  if (bytes > 2 ** 20) {
    const x = bytes + 5243;
    return `${Math.floor(x / 2 ** 20)}.${String(Math.floor(((x % 2 ** 20) * 100) / 2 ** 20)).padStart(2, "0")} MiB`;
  }
  if (bytes > 2 ** 10) {
    const x = bytes + 5;
    return `${Math.floor(x / 2 ** 10)}.${String(Math.floor(((x % 2 ** 10) * 100) / 2 ** 10)).padStart(2, "0")} KiB`;
  }
  return bytes === 1 ? "1 byte" : `${bytes} bytes`;
}

/**
 * What git's receive-pack says of a pack over `receive.maxInputSize` (GitLab sets it from the
 * `receive_max_input_size` application setting): its unpacker dies with this on stderr, relayed on the
 * progress band (`remote: fatal: …`), and the report names the unpacker. index-pack adds the limit.
 */
function tooLargeReport(error: PackTooLarge): { fatal: string; unpacker: string } {
  if (error.objects < UNPACK_LIMIT) return { fatal: "fatal: pack exceeds maximum allowed size", unpacker: "unpack-objects abnormal exit" };
  return { fatal: `fatal: pack exceeds maximum allowed size (${humaniseBytes(error.maxBytes)})`, unpacker: "index-pack abnormal exit" };
}

/** Reads the pack, resolving deltas, writing objects in batches; returns what it held. */
async function unpack(db: Database, poolId: number, reader: ByteReader, maxBytes: number | null): Promise<Received> {
  const received: Received = { types: new Map(), commits: [], tags: new Map(), blobSizes: new Map() };
  const referenced = new Set<string>();
  let pending: q.ObjectWrite[] = [];
  let pendingBodies = new Map<string, { type: ObjectTypeName; body: Uint8Array }>();
  let pendingBytes = 0;

  const flush = async () => {
    if (pending.length === 0) return;
    await q.insertObjects(db, poolId, pending);
    pending = [];
    pendingBodies = new Map();
    pendingBytes = 0;
  };
  const load = async (oid: string) => {
    const buffered = pendingBodies.get(oid);
    if (buffered) return buffered;
    const stored = (await readObjects(db, poolId, [oid])).get(oid);
    return stored ? { type: stored.type, body: stored.body } : null;
  };
  const accept = async (object: ResolvedObject) => {
    received.types.set(object.oid, object.type);
    if (object.type === "commit") {
      const commit = decodeCommit(object.body);
      received.commits.push({ oid: object.oid, commit });
      referenced.add(commit.tree);
      for (const parent of commit.parents) referenced.add(parent);
    } else if (object.type === "tree") {
      for (const entry of decodeTree(object.body)) if (entry.mode !== "160000") referenced.add(entry.oid);
    } else if (object.type === "tag") {
      const tag = decodeTag(object.body);
      received.tags.set(object.oid, { object: tag.object, type: tag.type });
      referenced.add(tag.object);
    } else if (object.type === "blob") received.blobSizes.set(object.oid, object.body.length);
    const zdata = object.zdata ?? zlibSync(object.body, { level: 6 });
    pending.push({ oid: object.oid, type: TYPE_CODE[object.type], size: object.body.length, zdata });
    pendingBodies.set(object.oid, { type: object.type, body: object.body });
    pendingBytes += zdata.length + object.body.length;
    if (pendingBytes >= FLUSH_BYTES) await flush();
  };

  const resolver = new PackResolver(load);
  for await (const entry of readPack(reader, { keepCompressed: true, maxBytes })) {
    const object = await resolver.add(entry);
    if (object) await accept(object);
  }
  for await (const object of resolver.finish()) await accept(object);
  await flush();

  // Connectivity: everything the new objects point at is in the pack or already stored.
  const outside = [...referenced].filter((oid) => !received.types.has(oid));
  for (let i = 0; i < outside.length; i += 1000) {
    const chunk = outside.slice(i, i + 1000);
    const found = await objectTypes(db, poolId, chunk);
    const missing = chunk.find((oid) => !found.has(oid));
    if (missing) throw new Disconnected(missing);
  }
  return received;
}

class Disconnected extends Error {
  constructor(readonly oid: string) {
    super(`missing necessary objects (${oid})`);
  }
}

/** Parents before children, so each chunk of the commit index finds its parents' rows. */
function parentsFirst(commits: { oid: string; commit: Commit }[]) {
  const byOid = new Map(commits.map((c) => [c.oid, c]));
  const done = new Set<string>();
  const out: typeof commits = [];
  for (const start of commits) {
    const stack: [typeof start, number][] = [[start, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (done.has(top[0].oid)) {
        stack.pop();
        continue;
      }
      const parents = top[0].commit.parents;
      if (top[1] < parents.length) {
        const parent = byOid.get(parents[top[1]++]);
        if (parent && !done.has(parent.oid)) stack.push([parent, 0]);
        continue;
      }
      done.add(top[0].oid);
      out.push(top[0]);
      stack.pop();
    }
  }
  return out;
}

/** Indexes the pushed commits that are not indexed yet, parents first, in chunks. */
async function indexReceived(db: Database, poolId: number, commits: Received["commits"]) {
  const known = new Set<string>();
  for (let i = 0; i < commits.length; i += 1000) {
    for (const oid of await q.knownCommits(db, poolId, commits.slice(i, i + 1000).map((c) => c.oid))) known.add(oid);
  }
  const todo = parentsFirst(commits.filter((c) => !known.has(c.oid)));
  for (let i = 0; i < todo.length; i += INDEX_CHUNK) {
    await indexCommits(db, poolId, todo.slice(i, i + INDEX_CHUNK), storeSource(db, poolId));
  }
}

/** The commit an annotated tag leads to (through tags of tags); null for a tag of a tree or blob. */
async function peel(db: Database, poolId: number, oid: string, received: Received): Promise<string | null> {
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    let tag = received.tags.get(current);
    if (!tag) {
      const stored = (await readObjects(db, poolId, [current])).get(current);
      if (!stored || stored.type !== "tag") return null;
      const decoded = decodeTag(stored.body);
      tag = { object: decoded.object, type: decoded.type };
    }
    if (tag.type === "commit") return tag.object;
    if (tag.type !== "tag") return null;
    current = tag.object;
  }
  return null;
}

async function typeOf(db: Database, poolId: number, oid: string, received: Received): Promise<ObjectTypeName | null> {
  const type = received.types.get(oid);
  if (type) return type;
  const found = await objectTypes(db, poolId, [oid]);
  const code = found.get(oid);
  return code === undefined ? null : (["", "commit", "tree", "blob", "tag"][code] as ObjectTypeName);
}

/**
 * Runs a push: the response body (report-status, in side-band-64k frames when the client asked).
 * GitLab's own policy refusals (the checks of its pre-receive hook) decline the whole push, as the hook
 * does, with the reason on the progress band. `maxInputSize`: the longest pack accepted, in bytes
 * (null: any); a longer one is refused as it streams in, before more of it is read.
 */
export async function receivePack(
  db: Database,
  /**
   * `wiki`: a wiki repository (Gitlab::GitAccessWiki): no protected branches, LFS locks or push events,
   * and its HEAD is its row's default branch.
   */
  repo: Repository & { emptyRepo: boolean; fullPath: string; membersUrl: string; lfsEnabled: boolean; maxInputSize: number | null; wiki?: boolean },
  userId: number,
  caller: Caller,
  body: ReadableStream<Uint8Array> | null,
  /** For a caller without push_code (a collaborator on a fork's merge request): may they push this branch? */
  mayPushBranch: ((branch: string) => Promise<boolean>) | null = null,
): Promise<PushResult> {
  const reader = new ByteReader(body);
  const options: string[] = [];
  const commands: Command[] = [];
  let capabilities: string[] = [];
  let badRequest: string | null = null;
  try {
    for (;;) {
      const line = await readPkt(reader);
      if (!line || line.kind !== "data") break;
      let text = pktText(line.payload);
      const nul = text.indexOf("\0");
      if (nul >= 0) {
        capabilities = text.slice(nul + 1).split(" ");
        text = text.slice(0, nul);
      }
      if (text.startsWith("shallow ")) continue;
      const match = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+)$/.exec(text);
      if (!match) {
        badRequest = `protocol error: expected old/new/ref, got '${text}'`;
        break;
      }
      commands.push({ old: match[1], new: match[2], ref: match[3] });
    }
    // push-options: `git push -o <option>` lines follow the commands, up to a flush.
    if (!badRequest && capabilities.includes("push-options") && commands.length) {
      for (;;) {
        const line = await readPkt(reader);
        if (!line || line.kind !== "data") break;
        options.push(pktText(line.payload));
      }
    }
  } catch (error) {
    if (!(error instanceof PktError || error instanceof TruncatedInput)) throw error;
    badRequest = `protocol error: ${error.message}`;
  }
  const useSideband = capabilities.includes("side-band-64k");
  const quiet = capabilities.includes("quiet");
  const progress: Uint8Array[] = [];
  const say = (text: string) => {
    if (useSideband) progress.push(...sideband(2, new TextEncoder().encode(`${text}\n`)));
  };
  let moved = false;
  const changes: PushResult["changes"] = [];
  const respond = (lines: string[]): PushResult => ({ body: reportBody(lines), moved, options, changes });
  const reportBody = (lines: string[]) => {
    const report = [...lines.map((line) => pkt(`${line}\n`)), FLUSH];
    if (!useSideband) return report;
    const joined = new Uint8Array(report.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of report) {
      joined.set(part, at);
      at += part.length;
    }
    return [...progress, ...sideband(1, joined), FLUSH];
  };
  if (badRequest) return respond([`unpack ${badRequest}`]);
  if (commands.length === 0) return { body: [FLUSH], moved, options, changes };

  let received: Received = { types: new Map(), commits: [], tags: new Map(), blobSizes: new Map() };
  let unpackError: string | null = null;
  let disconnected = false;
  if (commands.some((c) => c.new !== ZERO_OID)) {
    try {
      received = await unpack(db, repo.poolId, reader, repo.maxInputSize);
      await indexReceived(db, repo.poolId, received.commits);
    } catch (error) {
      if (error instanceof PackTooLarge) {
        // The rest of the body is read and dropped, so the client gets the report instead of a broken
        // pipe; nothing of it is kept. Objects written before the limit stay unreferenced (as after any
        // failed push), and no ref moves.
        await reader.drain();
        const { fatal, unpacker } = tooLargeReport(error);
        say(fatal);
        unpackError = unpacker;
      } else if (error instanceof Disconnected) disconnected = true;
      else if (error instanceof PackError || error instanceof TruncatedInput) unpackError = error.message;
      else throw error;
    }
  }
  if (unpackError) return respond([`unpack ${unpackError}`, ...commands.map((c) => `ng ${c.ref} unpacker error`)]);

  // GitLab's pre-receive checks (lib/gitlab/checks/branch_check.rb with protected branches): all or
  // nothing, as the hook declines the whole push.
  const updates: RefUpdate[] = [];
  for (const command of commands) {
    const before = command.old === ZERO_OID ? null : command.old;
    const after = command.new === ZERO_OID ? null : command.new;
    const forced =
      command.ref.startsWith("refs/heads/") && before !== null && after !== null && !disconnected && !(await q.isAncestor(db, repo.poolId, before, after));
    updates.push({ ref: command.ref, before, after, forced });
  }
  // Gitlab::Checks::PushCheck first: without push_code, only the branches of merge requests that allow
  // the caller's collaboration (`branch_allows_collaboration?`).
  // Differs from GitLab: a collaborator's tag push is refused (GitLab's PushCheck asks about any branch
  // when the change is a tag).
  const pushCheck: string[] = [];
  if (mayPushBranch) {
    for (const update of updates) {
      const allowed = update.ref.startsWith("refs/heads/") && (await mayPushBranch(update.ref.slice("refs/heads/".length)));
      if (!allowed) pushCheck.push(PUSH_FORBIDDEN);
    }
  }
  const decisions = pushCheck.length || repo.wiki
    ? []
    : await checkPush(db, { id: repo.projectId, poolId: repo.poolId, emptyRepo: repo.emptyRepo, defaultBranch: repo.defaultBranch, fullPath: repo.fullPath, membersUrl: repo.membersUrl }, caller, updates);
  const declined = [...pushCheck, ...decisions.flatMap((d) => (d.allowed ? [] : [d.message]))];
  // The new commits' changes, diffed once if a check below needs them.
  const pushedDiff = pushedChanges(db, repo.poolId, received.commits);
  // DiffCheck comes after the ref checks, as in GitLab's ChangeAccess: paths locked in LFS by others.
  if (!declined.length && repo.lfsEnabled && !repo.wiki && !disconnected && received.commits.length) {
    const locked = await lfsLockViolation(db, repo.projectId, userId, pushedDiff);
    if (locked) declined.push(locked);
  }
  // EE's PushRuleCheck comes last (Gitlab::Checks::ChangesAccess#validate! runs it after the ref checks).
  if (!declined.length && !repo.wiki && !disconnected) {
    const pushed = received.commits.map(({ oid, commit }) => ({
      oid,
      message: commit.message,
      authorEmail: commit.author.email,
      committerEmail: commit.committer.email,
      signed: commit.extraHeaders.some((h) => h.startsWith("gpgsig ") || h.startsWith("gpgsig-sha256 ")),
    }));
    const broken = await pushRuleViolation(db, repo.projectId, userId, updates, pushed, async () => pushedFiles(await pushedDiff(), received.blobSizes));
    if (broken) declined.push(broken);
  }
  if (declined.length) {
    for (const reason of new Set(declined)) say(`GitLab: ${reason}`);
    return respond(["unpack ok", ...commands.map((c) => `ng ${c.ref} pre-receive hook declined`)]);
  }

  const lines = ["unpack ok"];
  const createdBranches: string[] = [];
  for (const command of commands) {
    const { ref } = command;
    const fail = (reason: string) => lines.push(`ng ${ref} ${reason}`);
    if (!isValidRefName(ref) || !ref.startsWith("refs/")) {
      fail("funny refname");
      continue;
    }
    if (!ref.startsWith("refs/heads/") && !ref.startsWith("refs/tags/")) {
      fail("deny updating a hidden ref");
      continue;
    }
    if (disconnected && command.new !== ZERO_OID) {
      fail("missing necessary objects");
      continue;
    }
    let peeled: string | null = null;
    if (command.new !== ZERO_OID) {
      const type = await typeOf(db, repo.poolId, command.new, received);
      if (!type) {
        fail("bad pack");
        continue;
      }
      if (ref.startsWith("refs/heads/") && type !== "commit") {
        fail("non-commit object on a branch");
        continue;
      }
      if (type === "tag") peeled = await peel(db, repo.poolId, command.new, received);
    }
    const won = await swapRefWithEvent(db, {
      projectId: repo.projectId,
      name: ref,
      oldTarget: command.old === ZERO_OID ? null : command.old,
      newTarget: command.new === ZERO_OID ? null : command.new,
      peeled,
      userId,
      pushEvent: !repo.wiki,
    });
    if (!won) {
      fail("failed to update ref");
      continue;
    }
    lines.push(`ok ${ref}`);
    moved = true;
    changes.push({ ref, before: command.old, after: command.new });
    if (ref.startsWith("refs/heads/") && command.old === ZERO_OID && command.new !== ZERO_OID) createdBranches.push(ref.slice(11));
  }
  if (repo.emptyRepo && !repo.wiki && createdBranches.length) {
    // Gitaly's FindDefaultBranchName: HEAD's branch if it came, else main, else master, else the first.
    const pick = [repo.defaultBranch, "main", "master"].find((b) => b && createdBranches.includes(b)) ?? createdBranches[0];
    await q.setFirstBranch(db, repo.projectId, pick!);
  }
  if (!quiet && received.commits.length) say(`Received ${received.types.size} objects, ${received.commits.length} commits.`);
  return respond(lines);
}
