// The client side of smart HTTP receive-pack (gitprotocol-http(5), gitprotocol-pack(5)): what `git push
// --mirror` does, hand-written because no library speaks it from a Worker over rows in Postgres.
// Gitaly's UpdateRemoteMirror decides which refs move; the pack is upload-pack's (same object selection,
// same writer of undeltified entries from stored zlib bodies).
import type { Executor } from "../../kernel/db";
import { listRefs, refCommit, toBase64, utf8, type Ref } from "../git";
import { ByteReader } from "../git/pack/reader";
import { FLUSH, pkt, pktText, readPkt } from "../git/pack/pktline";
import { walkCommits } from "../git/store/reachable";
import { isAncestor, knownCommits } from "../git_http/queries";
import { AGENT, packBytes, packOids, selectWants } from "../git_http/upload_pack";
import type { MirrorCredentials } from "./url";

const ZERO_OID = "0000000000000000000000000000000000000000";
const ADVERTISEMENT_TIMEOUT_MS = 60_000;
const PUSH_TIMEOUT_MS = 600_000;

/** A failure to report as the mirror's `last_error` (the remote refused, answered badly, or was unreachable). */
export class MirrorError extends Error {}

export type MirrorOptions = {
  /** `only_protected_branches`: branches outside it are neither pushed nor deleted on the remote. Tags always are. */
  branchInScope: (branch: string) => boolean;
  keepDivergentRefs: boolean;
};

export type Command = { ref: string; old: string; new: string };
export type MirrorPlan = { commands: Command[]; divergent: string[] };
export type Advertised = { refs: Map<string, string>; peeled: Map<string, string>; capabilities: Set<string> };

const mirrored = (name: string) => name.startsWith("refs/heads/") || name.startsWith("refs/tags/");

/**
 * What the push does, as Gitaly's UpdateRemoteMirror: each local branch and tag the remote lacks or has
 * elsewhere is pushed (forced, unless `keepDivergentRefs`: then only a fast-forward, and a ref whose remote
 * tip is not an ancestor of ours is left alone and reported divergent); each remote branch or tag we do not
 * have is deleted, unless `keepDivergentRefs`. Pure but for `fastForward`, which asks the commit index.
 */
export async function planMirror(
  local: Ref[],
  remote: Map<string, string>,
  options: MirrorOptions,
  fastForward: (remoteTip: string, local: Ref) => Promise<boolean>,
): Promise<MirrorPlan> {
  const inScope = (name: string) => mirrored(name) && (!name.startsWith("refs/heads/") || options.branchInScope(name.slice(11)));
  const commands: Command[] = [];
  const divergent: string[] = [];
  const ours = new Map(local.filter((r) => inScope(r.name)).map((r) => [r.name, r]));
  for (const ref of ours.values()) {
    const theirs = remote.get(ref.name);
    if (theirs === ref.target) continue;
    if (theirs !== undefined && options.keepDivergentRefs && !(await fastForward(theirs, ref))) {
      divergent.push(ref.name);
      continue;
    }
    commands.push({ ref: ref.name, old: theirs ?? ZERO_OID, new: ref.target });
  }
  if (!options.keepDivergentRefs) {
    for (const [name, oid] of remote) if (inScope(name) && !ours.has(name)) commands.push({ ref: name, old: oid, new: ZERO_OID });
  }
  commands.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return { commands, divergent: divergent.sort() };
}

/** The v0 advertisement of `info/refs?service=git-receive-pack`: refs, peeled tags and capabilities. */
export async function parseAdvertisement(body: ReadableStream<Uint8Array> | Uint8Array | null): Promise<Advertised> {
  const reader = new ByteReader(body);
  const refs = new Map<string, string>();
  const peeled = new Map<string, string>();
  const capabilities = new Set<string>();
  let first = true;
  let sawService = false;
  for (;;) {
    const line = await readPkt(reader);
    if (line === null) break;
    if (line.kind !== "data") {
      if (sawService && !first) break;
      continue;
    }
    let text = pktText(line.payload);
    if (text.startsWith("# service=")) {
      sawService = true;
      continue;
    }
    if (first) {
      const nul = text.indexOf("\0");
      if (nul >= 0) {
        for (const cap of text.slice(nul + 1).split(" ")) if (cap) capabilities.add(cap);
        text = text.slice(0, nul);
      }
      first = false;
    }
    const match = /^([0-9a-f]{40}) (.+)$/.exec(text);
    if (!match) throw new MirrorError(`the remote sent an unexpected line: ${JSON.stringify(text.slice(0, 80))}`);
    const [, oid, name] = match;
    if (name === "capabilities^{}") continue;
    if (name.endsWith("^{}")) peeled.set(name.slice(0, -3), oid);
    else if (name !== ".have") refs.set(name, oid);
  }
  if (first) throw new MirrorError("the remote sent no ref advertisement");
  return { refs, peeled, capabilities };
}

/** `unpack ok` and one `ok`/`ng` line per ref (report-status); the refusals as git prints them. */
export async function parseReport(body: ReadableStream<Uint8Array> | Uint8Array | null): Promise<string[]> {
  const reader = new ByteReader(body);
  const errors: string[] = [];
  for (;;) {
    const line = await readPkt(reader);
    if (line === null || line.kind === "flush") break;
    if (line.kind !== "data") continue;
    const text = pktText(line.payload);
    if (text.startsWith("unpack ")) {
      if (text !== "unpack ok") errors.push(`error: remote unpack failed: ${text.slice(7)}`);
    } else if (text.startsWith("ng ")) {
      const rest = text.slice(3);
      const space = rest.indexOf(" ");
      const ref = space < 0 ? rest : rest.slice(0, space);
      errors.push(` ! [remote rejected] ${ref} (${space < 0 ? "failed" : rest.slice(space + 1)})`);
    }
  }
  return errors;
}

function authorization(credentials: MirrorCredentials): Record<string, string> {
  if (!credentials.user && !credentials.password) return {};
  return { Authorization: `Basic ${toBase64(utf8.encode(`${credentials.user ?? ""}:${credentials.password ?? ""}`))}` };
}

/** A fetch that follows no redirect (the outbound rules apply to the URL that was checked) and names the failure. */
async function request(url: string, init: RequestInit, shown: string, timeoutMs: number): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new MirrorError(`unable to access '${shown}': ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status >= 300 && response.status < 400) throw new MirrorError(`unable to access '${shown}': the remote redirects, and redirects are not followed`);
  if (response.status === 401 || response.status === 403) throw new MirrorError(`Authentication failed for '${shown}' (HTTP ${response.status})`);
  if (response.status !== 200) throw new MirrorError(`unable to access '${shown}': The requested URL returned error: ${response.status}`);
  return response;
}

/** The pack bytes as a request body, read as the remote takes them. */
function streamOf(chunks: AsyncGenerator<Uint8Array>, head: Uint8Array[]): ReadableStream<Uint8Array> {
  let pending = [...head];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.length) {
        for (const bytes of pending) controller.enqueue(bytes);
        pending = [];
        return;
      }
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

export type PushTarget = { repo: { projectId: number; poolId: number }; url: string; shownUrl: string; credentials: MirrorCredentials };

/**
 * Pushes the project's branches and tags to the remote as the plan says. Returns the divergent refs
 * (left alone under `keepDivergentRefs`) and how many refs moved; throws MirrorError for a refusal.
 */
export async function pushMirror(db: Executor, target: PushTarget, options: MirrorOptions): Promise<{ divergent: string[]; updated: number }> {
  const base = target.url.replace(/\/+$/, "");
  const auth = authorization(target.credentials);
  const headers = { ...auth, "User-Agent": "git/2.39.0 (edgeforge push mirror)" };
  const advertisement = await request(`${base}/info/refs?service=git-receive-pack`, { headers }, target.shownUrl, ADVERTISEMENT_TIMEOUT_MS);
  if (!(advertisement.headers.get("content-type") ?? "").startsWith("application/x-git-receive-pack-advertisement")) {
    await advertisement.body?.cancel();
    throw new MirrorError(`'${target.shownUrl}' is not a smart HTTP git repository`);
  }
  const remote = await parseAdvertisement(advertisement.body);
  const local = (await listRefs(db, target.repo.projectId)).filter((r) => mirrored(r.name));
  const known = await knownCommits(db, target.repo.poolId, [...new Set([...remote.refs.values(), ...remote.peeled.values()])]);
  const plan = await planMirror(local, remote.refs, options, async (theirs, ours) => {
    const commit = remote.peeled.get(ours.name) ?? theirs;
    return known.has(commit) && isAncestor(db, target.repo.poolId, commit, refCommit(ours));
  });
  // Without `delete-refs` the remote cannot delete; those refs stay (as git push does, with an error).
  const commands = remote.capabilities.has("delete-refs") ? plan.commands : plan.commands.filter((c) => c.new !== ZERO_OID);
  if (commands.length === 0) return { divergent: plan.divergent, updated: 0 };

  const wants = [...new Set(commands.filter((c) => c.new !== ZERO_OID).map((c) => c.new))];
  const caps = ["report-status", "delete-refs"].filter((c) => remote.capabilities.has(c));
  const head = commands.map((c, i) => pkt(`${c.old} ${c.new} ${c.ref}${i === 0 ? `\0${[...caps, AGENT].join(" ")}` : ""}\n`));
  head.push(FLUSH);
  let body: ReadableStream<Uint8Array>;
  if (wants.length === 0) {
    // Only deletions: git sends no pack.
    body = streamOf((async function* () {})(), head);
  } else {
    const selected = await selectWants(db, target.repo.poolId, wants);
    const walked = await walkCommits(db, target.repo.poolId, selected.commits, [...known]);
    const oids = await packOids(db, target.repo.poolId, selected, walked);
    body = streamOf(packBytes(db, target.repo.poolId, oids), head);
  }
  const response = await request(
    `${base}/git-receive-pack`,
    { method: "POST", headers: { ...headers, "Content-Type": "application/x-git-receive-pack-request", Accept: "application/x-git-receive-pack-result" }, body },
    target.shownUrl,
    PUSH_TIMEOUT_MS,
  );
  if (caps.includes("report-status")) {
    const errors = await parseReport(response.body);
    if (errors.length) throw new MirrorError(`To ${target.shownUrl}\n${errors.join("\n")}`);
  } else {
    await response.body?.cancel();
  }
  return { divergent: plan.divergent, updated: commands.length };
}
