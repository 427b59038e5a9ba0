// The git oracle (docs/git.md, "Testing against git"): the fixture history built by the git CLI, loaded through our store,
// must give what git gives: every `git log` variant, and `git diff --numstat -M100%` per commit.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { env } from "cloudflare:test";
import { createDb, type Database } from "../../../functions/kernel/db";
import { readCommitChanges, readCommitRows } from "../../../functions/shared/git/store/commit_index";
import { lastCommitsFrom, listCommits, resolveRevisions, type CommitsQuery, type Repo } from "../../../functions/shared/git/store/revisions";
import { CommitLoader } from "../../../functions/shared/git/store/loader";
import { readRepoState } from "../../../functions/shared/git/store/state";
import { clearTreeCache } from "../../../functions/shared/git/store/objects";
import { commitTree, findCommit, listTree, readFileAt, refsContaining } from "../../../functions/shared/git/store/read";
import { fromBase64 } from "../../../functions/shared/git/pure/bytes";
import type { FixtureLogCase } from "../../helpers/git-oracle-types";
import { loadFixtureRepo, openDb } from "../../helpers/git-oracle";

const fixtures = inject("gitFixtures");

let db: Database;
let close: () => Promise<void>;
let repo: Repo;

beforeAll(async () => {
  ({ db, close } = openDb());
  repo = await loadFixtureRepo(db, fixtures);
}, 120_000);

afterAll(async () => {
  await close();
});

async function run(c: FixtureLogCase): Promise<string[]> {
  const result = await listCommits(db, repo, {
    refName: c.query.refName ?? null,
    all: c.query.all,
    since: c.query.since !== undefined ? new Date(c.query.since * 1000) : null,
    until: c.query.until !== undefined ? new Date(c.query.until * 1000) : null,
    path: c.query.path ?? null,
    firstParent: c.query.firstParent,
    order: c.query.order,
    offset: c.query.offset,
    limit: c.query.limit,
  });
  if (result.kind !== "ok") throw new Error(`${c.name}: ${result.kind}`);
  return result.commits.map((row) => row.oid);
}

/** Runs a group of cases and reports every mismatch at once (one test per revision keeps output short). */
async function mismatches(cases: FixtureLogCase[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of cases) {
    const got = await run(c);
    if (JSON.stringify(got) !== JSON.stringify(c.expected)) {
      const at = got.findIndex((oid, i) => oid !== c.expected[i]);
      out.push(`git ${c.name}: got ${got.length} commits, git ${c.expected.length}; first difference at ${at < 0 ? Math.min(got.length, c.expected.length) : at}`);
    }
  }
  return out;
}

const groups = new Map<string, FixtureLogCase[]>();
for (const c of fixtures.logCases) {
  const key = c.query.all ? "--all" : c.query.refName ?? "(default branch)";
  const pageKey = c.query.offset > 0 || c.query.limit < 1000 ? `${key} paginated` : key;
  groups.set(pageKey, [...(groups.get(pageKey) ?? []), c]);
}

describe("git log oracle", () => {
  it("has a history worth testing", () => {
    expect(fixtures.commitCount).toBeGreaterThanOrEqual(200);
    expect(fixtures.logCases.length).toBeGreaterThan(500);
  });

  for (const [key, cases] of groups) {
    it(`matches git log for ${key} (${cases.length} variants: order, first-parent, path, since/until)`, async () => {
      expect(await mismatches(cases)).toEqual([]);
    });
  }

  it("resolves revisions like git rev-parse", async () => {
    const main = fixtures.refs.find((r) => r.name === "refs/heads/main")!.target;
    const tag = fixtures.refs.find((r) => r.name === "refs/tags/v1.0")!;
    const resolved = await resolveRevisions(db, repo, ["main", "HEAD", "refs/heads/main", "heads/main", "v1.0", tag.target, main.slice(0, 7), "nope", "main~0", "main^0", "main^{}"]);
    expect(resolved.get("main")).toBe(main);
    expect(resolved.get("HEAD")).toBe(main);
    expect(resolved.get("refs/heads/main")).toBe(main);
    expect(resolved.get("heads/main")).toBe(main);
    expect(resolved.get("v1.0")).toBe(tag.peeled);
    expect(resolved.get(tag.target)).toBe(tag.peeled);
    expect(resolved.get(main.slice(0, 7))).toBe(main);
    expect(resolved.get("nope")).toBeNull();
    expect(resolved.get("main~0")).toBe(main);
    expect(resolved.get("main^0")).toBe(main);
    expect(resolved.get("main^{}")).toBe(main);
  });

  it("answers invalid and unknown revisions distinctly", async () => {
    expect((await listCommits(db, repo, { refName: "a b", offset: 0, limit: 20 })).kind).toBe("invalid");
    expect((await listCommits(db, repo, { refName: "nope..main", offset: 0, limit: 20 })).kind).toBe("unknown");
    expect((await listCommits(db, repo, { refName: "0".repeat(40), offset: 0, limit: 20 })).kind).toBe("unknown");
  });
});

describe("reading (against git for-each-ref --contains and git ls-tree)", () => {
  it("finds the branches and tags that contain a commit", async () => {
    const problems: string[] = [];
    for (const [oid, expected] of Object.entries(fixtures.contains)) {
      const got = (await refsContaining(db, repo, oid, "all")).map((r) => (r.type === "branch" ? `refs/heads/${r.name}` : `refs/tags/${r.name}`));
      if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`${oid}: ${JSON.stringify(got)} != ${JSON.stringify(expected)}`);
      const branches = (await refsContaining(db, repo, oid, "branch")).map((r) => `refs/heads/${r.name}`);
      const tags = (await refsContaining(db, repo, oid, "tag")).map((r) => `refs/tags/${r.name}`);
      if (JSON.stringify([...branches, ...tags]) !== JSON.stringify(expected)) problems.push(`${oid}: by type`);
    }
    expect(Object.keys(fixtures.contains).length).toBeGreaterThanOrEqual(6);
    expect(problems).toEqual([]);
  });

  it("lists trees like git ls-tree and reads every file of main", async () => {
    for (const listing of fixtures.lsTree) {
      const commit = await findCommit(db, repo, listing.rev);
      const tree = await commitTree(db, repo, commit!.oid);
      const got = await listTree(db, repo, tree!, listing.path, listing.recursive);
      if (listing.entries.length === 0) {
        expect(got).toBeNull();
        continue;
      }
      // `ls-tree -t <rev> <dir>/` also shows the trees on the way to <dir>; a listing holds what is inside.
      const inside = listing.entries.filter((e) => !listing.path || e.path.startsWith(`${listing.path}/`));
      expect(got!.map((e) => ({ mode: e.mode, type: e.type, oid: e.oid, path: e.path }))).toEqual(inside);
    }
    const all = fixtures.lsTree.find((l) => l.rev === "main" && l.path === "" && l.recursive)!;
    const tree = await commitTree(db, repo, (await findCommit(db, repo, "main"))!.oid);
    const bodies = new Map(fixtures.objects.map((o) => [o.oid, o.data]));
    for (const entry of all.entries.filter((e) => e.type === "blob")) {
      const file = await readFileAt(db, repo, tree!, entry.path);
      expect(file, entry.path).toMatchObject({ path: entry.path, mode: entry.mode, oid: entry.oid });
      expect(file!.content).toEqual(fromBase64(bodies.get(entry.oid)!));
    }
    expect(await readFileAt(db, repo, tree!, "src")).toBeNull();
    expect(await readFileAt(db, repo, tree!, "no/such/file")).toBeNull();
  });

  it("finds commits by sha, short sha, branch and tag", async () => {
    const main = fixtures.refs.find((r) => r.name === "refs/heads/main")!.target;
    expect((await findCommit(db, repo, main))?.oid).toBe(main);
    expect((await findCommit(db, repo, main.slice(0, 8)))?.oid).toBe(main);
    expect((await findCommit(db, repo, "main"))?.oid).toBe(main);
    expect((await findCommit(db, repo, "v1.0"))?.oid).toBe(fixtures.refs.find((r) => r.name === "refs/tags/v1.0")!.peeled);
    expect(await findCommit(db, repo, "no-such-branch")).toBeNull();
  });
});

describe("listCommits statements", () => {
  it("runs the same few statements for a page of 1 and of 100, cold, with or without a path", async () => {
    let count = 0;
    const counted = createDb(env as never, () => count++);
    const statements = async (query: CommitsQuery) => {
      clearTreeCache();
      count = 0;
      const result = await listCommits(counted.db, repo, query);
      expect(result.kind).toBe("ok");
      return count;
    };
    try {
      for (const extra of [{}, { path: "src" }, { path: "src/lib/" }, { order: "topo" as const }, { refName: "v1.0..main" }]) {
        const one = await statements({ ...extra, offset: 0, limit: 1 });
        const hundred = await statements({ ...extra, offset: 0, limit: 100 });
        expect([JSON.stringify(extra), one]).toEqual([JSON.stringify(extra), hundred]);
        expect(one).toBeLessThanOrEqual(5);
      }
    } finally {
      await counted.pool.end();
    }
  });
});

describe("commit index oracle", () => {
  it("records git diff --numstat -M100% for every commit, against the first parent", async () => {
    const oids = Object.keys(fixtures.numstat);
    expect(oids.length).toBe(fixtures.commitCount);
    const rows = await readCommitRows(db, repo.poolId, oids);
    const problems: string[] = [];
    for (const oid of oids) {
      const expected = fixtures.numstat[oid];
      const changes = await readCommitChanges(db, repo.poolId, oid);
      const got = changes
        .map((c) => ({ path: c.path, oldPath: c.oldPath, additions: c.binary ? null : c.additions, deletions: c.binary ? null : c.deletions }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const want = [...expected].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${oid}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      const row = rows.get(oid)!;
      const additions = expected.reduce((sum, f) => sum + (f.additions ?? 0), 0);
      const deletions = expected.reduce((sum, f) => sum + (f.deletions ?? 0), 0);
      if (row.additions !== additions || row.deletions !== deletions || row.filesChanged !== expected.length) {
        problems.push(`${oid}: stats ${row.additions}/${row.deletions}/${row.filesChanged} != ${additions}/${deletions}/${expected.length}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("numbers generations as git's commit-graph does", async () => {
    const rows = await readCommitRows(db, repo.poolId, Object.keys(fixtures.numstat));
    for (const row of rows.values()) {
      const parents = row.parents.map((p) => rows.get(p)!.generation);
      expect(row.generation).toBe(parents.length ? Math.max(...parents) + 1 : 1);
    }
  });
});

describe("last_commit_id checks read with the write's state (store/state.ts, revisions.ts#lastCommitsFrom)", () => {
  it("gives git log -1 <branch> -- <path> for every path git was asked about, from one state statement", async () => {
    // Every single-path `git log <branch> -- <path>` case, grouped by branch: the state read brings the
    // branch's tip and the first batch of history for all its paths at once, as a commit with many
    // `last_commit_id` actions reads them.
    const byBranch = new Map<string, Map<string, string | null>>();
    for (const c of fixtures.logCases) {
      const q = c.query;
      if (!q.path || !q.refName || q.all || q.firstParent || q.order !== "default" || q.since !== undefined || q.until !== undefined || q.offset !== 0) continue;
      if (!/^[\w-]+$/.test(q.refName) || q.path.endsWith("/")) continue;
      const paths = byBranch.get(q.refName) ?? new Map<string, string | null>();
      paths.set(q.path, c.expected[0] ?? null);
      byBranch.set(q.refName, paths);
    }
    let checked = 0;
    const failures: string[] = [];
    for (const [branch, expected] of byBranch) {
      const ref = `refs/heads/${branch}`;
      let statements = 0;
      const counted = createDb(env as never, () => statements++);
      try {
        // Twice: the first run also warms the isolate's tree cache, which the walks' TREESAME checks
        // at merges read (per path, as git does); the second shows what the history itself costs.
        for (const round of [1, 2]) {
          statements = 0;
          const loader = new CommitLoader(counted.db, repo.poolId, { paths: [...expected.keys()], batch: 256 });
          const state = await readRepoState(counted.db, repo, { names: [ref], history: { loader, from: { ref } } });
          const tip = state.tips.get(ref);
          if (!tip) break;
          const got = await lastCommitsFrom(counted.db, repo, tip.peeled ?? tip.target, loader);
          for (const [path, want] of expected) {
            if (round === 1) checked++;
            if ((got.get(path) ?? null) !== want) failures.push(`${branch} -- ${path}: got ${got.get(path)}, git ${want}`);
          }
          // The fixture's history fits the first batch, read by the state statement: no other statement.
          if (round === 2 && statements !== 1) failures.push(`${branch}: ${statements} statements`);
        }
      } finally {
        await counted.pool.end();
      }
    }
    expect(checked).toBeGreaterThan(5);
    expect(failures).toEqual([]);
  });
});
