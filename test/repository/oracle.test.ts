// Files and trees against the git oracle (docs/git.md, "Testing against git"): the fixture history built with the git CLI, loaded
// through the store, read through the API. `last_commit_id` must be `git log -1 <ref> -- <path>`, the
// content the blob git has at that path, and the tree listing `git ls-tree` in GitLab's order.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Database } from "../../functions/kernel/db";
import { fromBase64, toBase64 } from "../../functions/shared/git/pure/bytes";
import { commitTree, findCommit, readFileAt } from "../../functions/shared/git/store/read";
import { lastCommitForPath, type Repo } from "../../functions/shared/git/store/revisions";
import { statusAndBody, type Client } from "../helpers/client";
import { world } from "../helpers/world";
import { loadFixtureRepo, openDb } from "../helpers/git-oracle";
import type { Json } from "../helpers/api";

const fixtures = inject("gitFixtures");

let db: Database;
let close: () => Promise<void>;
let repo: Repo;
let api: Client;

beforeAll(async () => {
  ({ db, close } = openDb());
  repo = await loadFixtureRepo(db, fixtures);
  const w = await world();
  const reader = await w.user();
  await w.addMembers("Project", repo.projectId, { reporters: [reader] });
  api = w.as(reader);
}, 120_000);

afterAll(async () => close());

const file = (path: string, ref: string) => api.get(`/projects/${repo.projectId}/repository/files/${encodeURIComponent(path)}`, { query: { ref } });

describe("GET /projects/:id/repository/files/:file_path against git", () => {
  it("gives git log -1's commit as last_commit_id for every revision git was asked about", async () => {
    const cases = fixtures.logCases.filter(
      (c) =>
        (c.query.path === "README.md" || c.query.path === "docs/old-guide.md") &&
        c.query.refName &&
        !c.query.refName.includes("..") &&
        !c.query.firstParent &&
        c.query.order === "default" &&
        c.query.since === undefined &&
        c.query.until === undefined &&
        c.query.offset === 0,
    );
    expect(cases.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const c of cases) {
      const commit = await findCommit(db, repo, c.query.refName!);
      const blob = await readFileAt(db, repo, (await commitTree(db, repo, commit!.oid))!, c.query.path!);
      const [status, body] = await statusAndBody(await file(c.query.path!, c.query.refName!));
      const want = blob ? [200, c.expected[0], toBase64(blob.content)] : [404];
      const got = status === 200 ? [200, (body as Json).last_commit_id, (body as Json).content] : [status];
      if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${c.name}: got ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
    }
    expect(failures).toEqual([]);
  });

  it("reads every file of main as git has it, and refuses directories and submodules", async () => {
    const listing = fixtures.lsTree.find((l) => l.rev === "main" && l.path === "" && l.recursive)!;
    const bodies = new Map(fixtures.objects.map((o) => [o.oid, o.data]));
    const failures: string[] = [];
    for (const entry of listing.entries) {
      const [status, body] = await statusAndBody(await file(entry.path, "main"));
      if (entry.type !== "blob") {
        if (status !== 404) failures.push(`${entry.path} (${entry.type}): ${status}`);
        continue;
      }
      const last = await lastCommitForPath(db, repo, "main", entry.path);
      const want = [200, entry.oid, bodies.get(entry.oid), last, entry.mode === "100755"];
      const b = body as Json;
      const got = [status, b.blob_id, b.content, b.last_commit_id, b.execute_filemode];
      if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${entry.path}: got ${JSON.stringify(got).slice(0, 200)}`);
      expect(fromBase64(b.content).length).toBe(b.size);
    }
    expect(failures).toEqual([]);
  });
});

describe("GET /projects/:id/repository/tree against git", () => {
  it("lists what git ls-tree lists, directories first as GitLab sorts them", async () => {
    for (const listing of fixtures.lsTree) {
      const query: Record<string, string> = { ref: listing.rev, ...(listing.path ? { path: listing.path } : {}) };
      if (listing.recursive) Object.assign(query, { recursive: "true", pagination: "none" });
      const res = await api.get(`/projects/${repo.projectId}/repository/tree`, { query: { ...query, per_page: 100 } });
      expect(res.status).toBe(200);
      const inside = listing.entries.filter((e) => !listing.path || e.path.startsWith(`${listing.path}/`));
      const expected = ["tree", "blob", "commit"].flatMap((type) =>
        inside.filter((e) => e.type === type).map((e) => ({ id: e.oid, name: e.path.slice(e.path.lastIndexOf("/") + 1), type: e.type, path: e.path, mode: e.mode })),
      );
      expect(await res.json(), `${listing.rev} ${listing.path} ${listing.recursive}`).toEqual(expected.slice(0, listing.recursive ? undefined : 100));
    }
  });
});

describe("GET /projects/:id/repository/merge_base against git", () => {
  it("finds what git merge-base finds (criss-cross merges, skewed clocks, three refs)", async () => {
    expect(fixtures.mergeBases.length).toBeGreaterThan(5);
    for (const c of fixtures.mergeBases) {
      const [status, body] = await statusAndBody(await api.get(`/projects/${repo.projectId}/repository/merge_base`, { query: { "refs[]": c.refs } }));
      if (c.expected === null) expect([status, body], c.refs.join(" ")).toEqual([404, { message: "404 Merge Base Not Found" }]);
      else expect([status, (body as Json).id], c.refs.join(" ")).toEqual([200, c.expected]);
    }
  });
});

describe("GET /projects/:id/repository/compare against git", () => {
  it("lists git log --reverse from..to and the files and line counts of git diff from...to (from..to when straight)", async () => {
    for (const c of fixtures.compares) {
      const name = `${c.from} ${c.straight ? ".." : "..."} ${c.to}`;
      const [status, body] = await statusAndBody(
        await api.get(`/projects/${repo.projectId}/repository/compare`, { query: { from: c.from, to: c.to, straight: c.straight } }),
      );
      expect(status, name).toBe(200);
      const b = body as Json;
      expect(b.commits.map((commit: Json) => commit.id), name).toEqual(c.commits);
      expect(b.commit?.id ?? null, name).toBe(c.commits.at(-1) ?? null);
      // Line counts from the hunks, binary files as git's null counts.
      const got = b.diffs.map((d: Json) => {
        const binary = d.diff.startsWith("Binary files ");
        const lines = d.diff.split("\n");
        return {
          path: d.new_path,
          oldPath: d.renamed_file ? d.old_path : null,
          additions: binary ? null : lines.filter((l: string) => l.startsWith("+")).length,
          deletions: binary ? null : lines.filter((l: string) => l.startsWith("-")).length,
        };
      });
      // git's numstat lists a rename under its new path; both lists are in git's diff order by new path.
      const sort = (list: { path: string }[]) => [...list].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
      expect(sort(got), name).toEqual(sort(c.numstat));
    }
  });
});
