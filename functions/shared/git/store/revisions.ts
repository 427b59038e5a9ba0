// Revision resolution (docs/git.md, "Reading") and the commits list (docs/git.md, "The commits list (git log)").
import { sql } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { isOid } from "../pure/bytes";
import { readCommitRows } from "./commit_index";
import { RevWalk, type RevSpec } from "./log";
import { CommitLoader, PathView } from "./loader";
import { decodeTag } from "../pure/objects";
import { compareRefNames, listRefs, readRefs, refCommit, type Ref } from "./refs";
import { readObject } from "./objects";
import type { GitCommitRow } from "../../../../db/schema";

/**
 * A repository: its refs live under `projectId`, its objects and commits under `poolId`. A wiki's key is
 * minus its row's id (db/schema/wikis.ts) and it records no push events (`pushEvents: false`): those
 * drive a project's pipelines, push hooks and events.
 */
export type Repo = { projectId: number; poolId: number; defaultBranch: string | null; pushEvents?: boolean };

/** A project's refs are its own; its objects are its fork network's pool (`pool_id`, else itself; docs/git.md, "Tables"). */
export const repoOf = (project: { id: number; defaultBranch: string | null; poolId?: number | null }): Repo => ({
  projectId: project.id,
  poolId: project.poolId ?? project.id,
  defaultBranch: project.defaultBranch,
});

type Step = { op: "~" | "^"; n: number } | { op: "peel" };

/** Splits `main~2^2^{}` into `main` and its suffix steps (git reads them left to right). */
export function parseRevision(rev: string): { base: string; steps: Step[] } | null {
  const steps: Step[] = [];
  let rest = rev;
  for (;;) {
    let m: RegExpExecArray | null;
    if ((m = /\^\{(commit|)\}$/.exec(rest))) {
      steps.unshift({ op: "peel" });
      rest = rest.slice(0, m.index);
    } else if ((m = /([~^])(\d*)$/.exec(rest)) && m.index > 0) {
      steps.unshift({ op: m[1] as "~" | "^", n: m[2] === "" ? 1 : Number(m[2]) });
      rest = rest.slice(0, m.index);
    } else break;
  }
  if (rest === "" || /[\x00-\x20~^:?*[\\]/.test(rest) || rest.includes("..") || rest.includes("@{")) return null;
  return { base: rest, steps };
}

/**
 * The ref names git tries for `name`, in order (refs.c ref_rev_parse_rules); `HEAD` is the default
 * branch (none in an empty repository). Every resolution of a name to a ref uses it.
 */
export function refCandidates(repo: Repo, name: string): string[] {
  if (name === "HEAD") return repo.defaultBranch ? [`refs/heads/${repo.defaultBranch}`] : [];
  return [
    ...(name.startsWith("refs/") ? [name] : []),
    `refs/${name}`,
    `refs/tags/${name}`,
    `refs/heads/${name}`,
    `refs/remotes/${name}`,
    `refs/remotes/${name}/HEAD`,
  ];
}

/**
 * Resolves revisions to commit ids as `git rev-parse <rev>^{commit}` would: full ids, ref names (tags
 * before branches), `HEAD` (the default branch), unique hex prefixes of 4+ characters, and the
 * suffixes `~n`, `^n`, `^{}`. Null for what does not resolve to a commit. One statement for all refs.
 */
export async function resolveRevisions(db: Executor, repo: Repo, revs: string[], walk?: RevWalk): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const parsed = new Map(revs.map((rev) => [rev, parseRevision(rev)]));
  const names = new Set<string>();
  for (const p of parsed.values()) if (p) for (const candidate of refCandidates(repo, p.base)) names.add(candidate);
  const refs = await readRefs(db, repo.projectId, [...names]);
  walk ??= new RevWalk(db, repo.poolId);
  const targets = [...refs.values()].map(refCommit);
  for (const p of parsed.values()) if (p && isOid(p.base)) targets.push(p.base);
  await walk.preload(targets);
  for (const rev of revs) {
    const p = parsed.get(rev);
    if (!p) {
      out.set(rev, null);
      continue;
    }
    let oid = await resolveBase(db, repo, p.base, refs, walk);
    for (const step of p.steps) {
      if (!oid) break;
      if (step.op === "peel") continue; // bases are already peeled to commits
      const commit = await walk.commit(oid);
      if (!commit) {
        oid = null;
        break;
      }
      if (step.op === "^") {
        oid = step.n === 0 ? oid : commit.parents[step.n - 1] ?? null;
      } else {
        let current: string | null = oid;
        for (let i = 0; i < step.n && current; i++) current = (await walk.commit(current))?.parents[0] ?? null;
        oid = current;
      }
    }
    out.set(rev, oid);
  }
  return out;
}

async function resolveBase(db: Executor, repo: Repo, base: string, refs: Map<string, Ref>, walk: RevWalk): Promise<string | null> {
  if (isOid(base)) return peelToCommit(db, repo, base, walk);
  for (const candidate of refCandidates(repo, base)) {
    const ref = refs.get(candidate);
    if (ref) return peelRef(db, repo, ref, walk);
  }
  if (/^[0-9a-f]{4,39}$/.test(base)) {
    const result = await db.execute<{ oid: string }>(
      sql`SELECT oid FROM git_commits WHERE pool_id = ${repo.poolId} AND oid LIKE ${`${base}%`} ORDER BY oid LIMIT 2`,
    );
    if (result.rows.length === 1) return result.rows[0].oid;
  }
  return null;
}

async function peelRef(db: Executor, repo: Repo, ref: Ref, walk: RevWalk): Promise<string | null> {
  if (ref.peeled) return ref.peeled;
  return peelToCommit(db, repo, ref.target, walk);
}

/** A commit id, or a tag (chain) that ends at a commit; null otherwise. */
async function peelToCommit(db: Executor, repo: Repo, oid: string, walk: RevWalk): Promise<string | null> {
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    if (await walk.commit(current)) return current;
    const object = await readObject(db, repo.poolId, current);
    if (!object || object.type !== "tag") return null;
    current = decodeTag(object.body).object;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The commits list

export type CommitsQuery = {
  /** Branch, tag, sha, `a..b` or `a...b`; the default branch when absent (and not `all`). */
  refName?: string | null;
  all?: boolean;
  since?: Date | null;
  until?: Date | null;
  path?: string | null;
  firstParent?: boolean;
  order?: "default" | "topo";
  offset: number;
  limit: number;
};

export type CommitsResult =
  | { kind: "ok"; commits: GitCommitRow[] }
  /** `ref_name` is not a revision git can parse (docs/compat.md: 400 `ref_name is invalid`). */
  | { kind: "invalid" }
  /** A revision that resolves to nothing (Gitaly answers "commits not found"). */
  | { kind: "unknown" };

/** Splits `a..b` / `a...b`; null when there is no range. Empty sides mean HEAD, as in git. */
export function parseRange(refName: string): { left: string; right: string; symmetric: boolean } | null {
  const three = refName.indexOf("...");
  if (three >= 0) return { left: refName.slice(0, three) || "HEAD", right: refName.slice(three + 3) || "HEAD", symmetric: true };
  const two = refName.indexOf("..");
  if (two >= 0) return { left: refName.slice(0, two) || "HEAD", right: refName.slice(two + 2) || "HEAD", symmetric: false };
  return null;
}

/** The rev spec for a ref name or `--all`, resolved; a string when it fails. */
export async function revSpecFor(db: Executor, repo: Repo, query: { refName?: string | null; all?: boolean }, walk: RevWalk): Promise<RevSpec | "invalid" | "unknown"> {
  if (query.all) {
    const refs = await listRefs(db, repo.projectId, "refs/");
    await walk.preload(refs.map(refCommit));
    const tips: string[] = [];
    for (const ref of refs.sort((a, b) => compareRefNames(a.name, b.name))) {
      const oid = await peelRef(db, repo, ref, walk);
      if (oid) tips.push(oid);
    }
    const head = repo.defaultBranch ? refs.find((r) => r.name === `refs/heads/${repo.defaultBranch}`) : undefined;
    if (head) tips.push(refCommit(head));
    return { kind: "tips", include: tips };
  }
  const refName = query.refName ?? (repo.defaultBranch ? repo.defaultBranch : "HEAD");
  const range = parseRange(refName);
  const revs = range ? [range.left, range.right] : [refName];
  for (const rev of revs) if (!parseRevision(rev)) return "invalid";
  const resolved = await resolveRevisions(db, repo, revs, walk);
  const oids = revs.map((rev) => resolved.get(rev) ?? null);
  if (oids.some((oid) => oid === null)) return "unknown";
  if (!range) return { kind: "tips", include: [oids[0]!] };
  if (range.symmetric) return { kind: "symmetric", left: oids[0]!, right: oids[1]! };
  return { kind: "tips", include: [oids[1]!], exclude: [oids[0]!] };
}

/**
 * `GET /projects/:id/repository/commits` (docs/git.md, "The commits list (git log)"): Gitaly's `git log --format=%H [--skip]
 * --max-count [--after] [--before] [--all --reverse] [<rev>] [--first-parent] [--topo-order]
 * [-- <path>]`, then the page's rows in one statement.
 */
export async function listCommits(db: Executor, repo: Repo, query: CommitsQuery): Promise<CommitsResult> {
  // A limited walk (topo order, ranges) reads all it can reach: load generously from the start.
  const limited = query.order === "topo" || (!query.all && !!query.refName && parseRange(query.refName) !== null);
  const batch = limited ? 5000 : Math.min(4 * (query.offset + query.limit) + 64, 5000);
  const walk = new RevWalk(db, repo.poolId, { path: query.path ?? null, batch });
  const spec = await revSpecFor(db, repo, query, walk);
  if (spec === "invalid" || spec === "unknown") return { kind: spec };
  const oids = await walk.log(spec, {
    firstParent: query.firstParent,
    topo: query.order === "topo",
    since: query.since ? Math.floor(query.since.getTime() / 1000) : null,
    until: query.until ? Math.floor(query.until.getTime() / 1000) : null,
    path: query.path ?? null,
    skip: query.offset,
    maxCount: query.limit,
    reverse: !!query.all,
  });
  const rows = await readCommitRows(db, repo.poolId, oids);
  return { kind: "ok", commits: oids.map((oid) => rows.get(oid)!).filter(Boolean) };
}

/**
 * The last commit that touched `path` on `rev` (`git log -1 -- <path>`, Gitaly LastCommitForPath):
 * what `last_commit_id` is checked against. Null when no commit touched it.
 */
export async function lastCommitForPath(db: Executor, repo: Repo, rev: string, path: string): Promise<string | null> {
  const walk = new RevWalk(db, repo.poolId, { path, batch: 256 });
  const spec = await revSpecFor(db, repo, { refName: rev }, walk);
  if (typeof spec === "string") return null;
  const [oid] = await walk.log(spec, { path, maxCount: 1 });
  return oid ?? null;
}

/**
 * `lastCommitForPath` for several paths from one resolved commit, sharing one history load: the
 * loader (built with `paths`) says which of the paths each commit touches, and one walk per path runs
 * over its rows in memory. The commit writer hands it a loader that already holds the first batch (read
 * with its state), so the `last_commit_id` checks of a commit cost no statement of their own unless a
 * path's last commit is older than that batch. Paths no commit touched map to null.
 */
export async function lastCommitsFrom(db: Executor, repo: Repo, tip: string, loader: CommitLoader): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const paths = loader.options.paths ?? [];
  for (let i = 0; i < paths.length; i++) {
    const walk = new RevWalk(db, repo.poolId, { path: paths[i], loader: new PathView(loader, i) });
    const [oid] = await walk.log({ kind: "tips", include: [tip] }, { path: paths[i], maxCount: 1 });
    out.set(paths[i], oid ?? null);
  }
  return out;
}
