import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projects, pushEvents } from "../../../db/schema";
import { createDb, type Database } from "../../../functions/kernel/db";
import { decodeUtf8, toBase64, utf8 } from "../../../functions/shared/git/pure/bytes";
import { readCommitChanges } from "../../../functions/shared/git/store/commit_index";
import { decodeCommit, hashObject } from "../../../functions/shared/git/pure/objects";
import { readRef } from "../../../functions/shared/git/store/refs";
import { lastCommitForPath, listCommits, type Repo } from "../../../functions/shared/git/store/revisions";
import { readObjects } from "../../../functions/shared/git/store/objects";
import { flattenTree, storeSource } from "../../../functions/shared/git/store/trees";
import { commitFiles, createInitialCommit, type CommitAction, type CommitFilesInput, type CommitFilesResult } from "../../../functions/shared/git/operations/commit_files";
import { commitFailureMessage } from "../../../functions/shared/git/operations/messages";
import { createBranch, createTag, deleteRefWithEvent } from "../../../functions/shared/git/operations/refs";
import { decodeTag } from "../../../functions/shared/git/pure/objects";
import { resolveRevisions } from "../../../functions/shared/git/store/revisions";
import { world } from "../../helpers/world";

let db: Database;
let close: () => Promise<void>;
beforeAll(() => {
  const opened = createDb(env as never);
  db = opened.db;
  close = () => opened.pool.end();
});
afterAll(async () => close());

const alice = { name: "Alice", email: "alice@example.com" };
const T = new Date("2024-05-01T10:00:00Z");

async function emptyRepo(): Promise<Repo> {
  const w = await world();
  const project = await w.project({ owner: await w.user() });
  return { projectId: project.id, poolId: project.id, defaultBranch: null };
}

/** A repository with README.md and src/app.js on main. */
async function seededRepo(): Promise<{ repo: Repo; first: string }> {
  const repo = await emptyRepo();
  const result = await commitFiles(db, repo, {
    branch: "main",
    message: "Initial",
    committer: alice,
    now: T,
    actions: [
      { action: "create", filePath: "README.md", content: "# Hello\n" },
      { action: "create", filePath: "src/app.js", content: "one\ntwo\nthree\n" },
    ],
  });
  if (!result.ok) throw new Error(result.failure.kind);
  return { repo: { ...repo, defaultBranch: "main" }, first: result.commit.oid };
}

async function files(repo: Repo, rev: string) {
  const ref = await readRef(db, repo.projectId, `refs/heads/${rev}`);
  const [commitObject] = [...(await readObjects(db, repo.poolId, [ref!.target])).values()];
  const tree = await flattenTree(storeSource(db, repo.poolId), decodeCommit(commitObject.body).tree);
  const blobs = await readObjects(db, repo.poolId, [...tree.values()].map((f) => f.oid));
  return Object.fromEntries([...tree.values()].map((f) => [f.path, { mode: f.mode, text: decodeUtf8(blobs.get(f.oid)!.body) }]));
}

/** The core's typed failures in the commits API's words, as the endpoint answers them. */
const worded = (r: CommitFilesResult) =>
  r.ok ? r : { ok: false as const, status: 400 as const, message: r.failure.kind === "forbidden" ? "forbidden" : commitFailureMessage(r.failure) };

const commit = async (repo: Repo, input: Partial<CommitFilesInput> & { actions: CommitAction[] }) =>
  worded(await commitFiles(db, repo, { branch: "main", message: "Change", committer: alice, now: T, ...input }));

describe("commitFiles", () => {
  it("makes the first commit of an empty repository and sets its default branch", async () => {
    const repo = await emptyRepo();
    const w = await world();
    const user = await w.user();
    const result = await createInitialCommit(db, repo, { branch: "main", path: "README.md", content: "# Project\n", message: "Initial commit", user: alice, userId: user.id, now: T });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.branchCreated).toBe(true);
    expect(result.commit).toMatchObject({ parents: [], message: "Initial commit", additions: 1, deletions: 0, filesChanged: 1, authorName: "Alice", committerEmail: "alice@example.com", authorTz: 0, generation: 1 });
    expect(result.commit.committedAt.toISOString()).toBe("2024-05-01T10:00:00.000Z");
    // The stored commit hashes to its id and carries git's exact layout.
    const object = (await readObjects(db, repo.poolId, [result.commit.oid])).get(result.commit.oid)!;
    expect(await hashObject("commit", object.body)).toBe(result.commit.oid);
    expect(decodeUtf8(object.body)).toMatch(/^tree [0-9a-f]{40}\nauthor Alice <alice@example.com> 1714557600 \+0000\ncommitter Alice <alice@example.com> 1714557600 \+0000\n\nInitial commit$/);
    expect(await readRef(db, repo.projectId, "refs/heads/main")).toMatchObject({ target: result.commit.oid, peeled: null });
    const [project] = await db.select().from(projects).where(eq(projects.id, repo.projectId));
    expect(project).toMatchObject({ emptyRepo: false, defaultBranch: "main" });
    const events = await db.select().from(pushEvents).where(eq(pushEvents.projectId, repo.projectId));
    expect(events).toMatchObject([{ ref: "refs/heads/main", before: "0".repeat(40), after: result.commit.oid, userId: user.id, processedAt: null }]);
  });

  it("initial commit: assumes an empty repository without reading it, but never commits a root beside an existing branch", async () => {
    // The README commit skips the state read; its swap requires that no branch exists. Another
    // writer's branch (here made first) makes it read the real state on its retry and refuse, as a
    // commit without a start point on a repository with branches is refused.
    const { repo, first } = await seededRepo();
    const w = await world();
    const user = await w.user();
    const result = await createInitialCommit(db, repo, { branch: "readme", path: "README.md", content: "# Project\n", message: "Initial commit", user: alice, userId: user.id, now: T });
    expect(result).toEqual({ ok: false, failure: { kind: "not_on_branch" } });
    expect(await readRef(db, repo.projectId, "refs/heads/readme")).toBeNull();
    expect(await readRef(db, repo.projectId, "refs/heads/main")).toMatchObject({ target: first });
    // On its own branch name it builds on what the winner committed (the retry's rule for a lost race).
    const onMain = await createInitialCommit(db, repo, { branch: "main", path: "NEW.md", content: "x\n", message: "Initial commit", user: alice, userId: user.id, now: T });
    expect(onMain.ok && onMain.commit.parents).toEqual([first]);
  });

  it("applies every action in order, each seeing the previous ones", async () => {
    const { repo, first } = await seededRepo();
    const result = await commit(repo, {
      message: "Many actions",
      authorName: "Bob",
      authorEmail: "bob@example.com",
      actions: [
        { action: "create", filePath: "docs/a/b/new.md", content: "new\n" },
        { action: "update", filePath: "src/app.js", content: "one\n2\nthree\nfour\n" },
        { action: "move", previousPath: "README.md", filePath: "docs/README.md" },
        { action: "create", filePath: "bin/run.sh", content: toBase64(utf8.encode("#!/bin/sh\n")), encoding: "base64", executeFilemode: true },
        { action: "chmod", filePath: "src/app.js", executeFilemode: true },
        { action: "move", previousPath: "docs/a/b/new.md", filePath: "docs/moved.md", content: "moved\n" },
        { action: "delete", filePath: "bin/run.sh" },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.commit).toMatchObject({ parents: [first], authorName: "Bob", authorEmail: "bob@example.com", committerName: "Alice", generation: 2 });
    expect(await files(repo, "main")).toEqual({
      "docs/README.md": { mode: "100644", text: "# Hello\n" },
      "docs/moved.md": { mode: "100644", text: "moved\n" },
      "src/app.js": { mode: "100755", text: "one\n2\nthree\nfour\n" },
    });
    const changes = await readCommitChanges(db, repo.poolId, result.commit.oid);
    expect(changes.map((c) => [c.path, c.status, c.oldPath, c.additions, c.deletions]).sort()).toEqual([
      ["docs/README.md", "R", "README.md", 0, 0],
      ["docs/moved.md", "A", null, 1, 0],
      ["src/app.js", "M", null, 2, 1],
    ]);
    expect(result.commit).toMatchObject({ additions: 3, deletions: 1, filesChanged: 3 });
  });

  it("answers GitLab's messages for impossible actions, and writes nothing", async () => {
    const { repo, first } = await seededRepo();
    const cases: [CommitAction[], string][] = [
      [[{ action: "create", filePath: "README.md", content: "x" }], "A file with this name already exists"],
      [[{ action: "create", filePath: "src", content: "x" }], "A directory with this name already exists"],
      [[{ action: "create", filePath: "README.md/inner", content: "x" }], "A file with this name already exists"],
      [[{ action: "update", filePath: "nope.txt", content: "x" }], "A file with this name doesn't exist"],
      [[{ action: "update", filePath: "src", content: "x" }], "A file with this name doesn't exist"],
      [[{ action: "delete", filePath: "nope.txt" }], "A file with this name doesn't exist"],
      [[{ action: "chmod", filePath: "nope.txt", executeFilemode: true }], "A file with this name doesn't exist"],
      [[{ action: "move", previousPath: "nope.txt", filePath: "x.txt" }], "A file with this name doesn't exist"],
      [[{ action: "move", previousPath: "README.md", filePath: "src/app.js" }], "A file with this name already exists"],
      [[{ action: "create", filePath: "../etc/passwd", content: "x" }], "Path cannot include directory traversal"],
      [[{ action: "create", filePath: "", content: "x" }], "You must provide a file path"],
      [[{ action: "create", filePath: "a//b", content: "x" }], "invalid path: 'a//b'"],
      [[{ action: "delete", filePath: "README.md" }, { action: "delete", filePath: "README.md" }], "A file with this name doesn't exist"],
    ];
    for (const [actions, message] of cases) {
      expect(await commit(repo, { actions }), JSON.stringify(actions)).toEqual({ ok: false, status: 400, message });
    }
    expect((await readRef(db, repo.projectId, "refs/heads/main"))!.target).toBe(first);
  });

  it("checks last_commit_id against the last commit that touched the path", async () => {
    const { repo, first } = await seededRepo();
    const second = await commit(repo, { actions: [{ action: "update", filePath: "README.md", content: "# Changed\n" }] });
    if (!second.ok) throw new Error(second.message);
    expect(await lastCommitForPath(db, repo, "main", "README.md")).toBe(second.commit.oid);
    expect(await lastCommitForPath(db, repo, "main", "src/app.js")).toBe(first);
    expect(await commit(repo, { actions: [{ action: "update", filePath: "README.md", content: "x\n", lastCommitId: first }] })).toEqual({
      ok: false,
      status: 400,
      message: "The file has changed since you started editing it: README.md",
    });
    expect(await commit(repo, { actions: [{ action: "move", previousPath: "README.md", filePath: "R.md", lastCommitId: first }] })).toMatchObject({
      message: "The file has changed since you started editing it: README.md",
    });
    const ok = await commit(repo, { actions: [{ action: "update", filePath: "src/app.js", content: "x\n", lastCommitId: first }] });
    expect(ok.ok).toBe(true);
  });

  it("creates a branch from start_branch or start_sha, and refuses what GitLab refuses", async () => {
    const { repo, first } = await seededRepo();
    const second = await commit(repo, { actions: [{ action: "create", filePath: "two.txt", content: "2\n" }] });
    if (!second.ok) throw new Error(second.message);

    const fromBranch = await commit(repo, { branch: "feature", startBranch: "main", actions: [{ action: "create", filePath: "f.txt", content: "f\n" }] });
    expect(fromBranch).toMatchObject({ ok: true, branchCreated: true, before: null });
    if (fromBranch.ok) expect(fromBranch.commit.parents).toEqual([second.commit.oid]);

    const fromSha = await commit(repo, { branch: "old", startSha: first, actions: [{ action: "create", filePath: "o.txt", content: "o\n" }] });
    expect(fromSha.ok && fromSha.commit.parents).toEqual([first]);
    expect(await files(repo, "old")).toMatchObject({ "o.txt": { text: "o\n" } });
    expect(Object.keys(await files(repo, "old"))).not.toContain("two.txt");

    expect(await commit(repo, { branch: "ghost", actions: [{ action: "create", filePath: "g", content: "" }] })).toEqual({
      ok: false,
      status: 400,
      message: "You can only create or edit files when you are on a branch",
    });
    expect(await commit(repo, { branch: "x", startBranch: "ghost", actions: [{ action: "create", filePath: "g", content: "" }] })).toMatchObject({
      message: "You can only create or edit files when you are on a branch",
    });
    expect(await commit(repo, { branch: "feature", startBranch: "main", actions: [{ action: "create", filePath: "g", content: "" }] })).toMatchObject({
      message: "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    });
    expect(await commit(repo, { branch: "a..b", startBranch: "main", actions: [{ action: "create", filePath: "g", content: "" }] })).toMatchObject({
      message: "Something went wrong when we tried to create 'a..b' for you: Branch name is invalid",
    });
    expect(await commit(repo, { branch: "y", startSha: "abc", actions: [{ action: "create", filePath: "g", content: "" }] })).toMatchObject({
      message: "Invalid start_sha 'abc'",
    });
    expect(await commit(repo, { branch: "y", startSha: "1".repeat(40), actions: [{ action: "create", filePath: "g", content: "" }] })).toMatchObject({
      message: `Cannot find start_sha '${"1".repeat(40)}'`,
    });
  });

  it("force overwrites a branch with a commit on the start point (not a fast-forward)", async () => {
    const { repo, first } = await seededRepo();
    await commit(repo, { branch: "feature", startBranch: "main", actions: [{ action: "create", filePath: "f.txt", content: "f\n" }] });
    const forced = await commit(repo, { branch: "feature", startSha: first, force: true, actions: [{ action: "create", filePath: "g.txt", content: "g\n" }] });
    expect(forced.ok).toBe(true);
    if (!forced.ok) return;
    expect(forced.commit.parents).toEqual([first]);
    expect(Object.keys(await files(repo, "feature")).sort()).toEqual(["README.md", "g.txt", "src/app.js"]);
  });

  it("lists the commits it made, newest first", async () => {
    const { repo, first } = await seededRepo();
    const made: string[] = [first];
    for (let i = 0; i < 3; i++) {
      const r = await commit(repo, { now: new Date(T.getTime() + (i + 1) * 1000), actions: [{ action: "update", filePath: "README.md", content: `v${i}\n` }] });
      if (r.ok) made.push(r.commit.oid);
    }
    const list = await listCommits(db, repo, { offset: 0, limit: 20 });
    expect(list.kind === "ok" && list.commits.map((c) => c.oid)).toEqual([...made].reverse());
    const byPath = await listCommits(db, repo, { path: "src", offset: 0, limit: 20 });
    expect(byPath.kind === "ok" && byPath.commits.map((c) => c.oid)).toEqual([first]);
  });

  it("never loses an update: 16 concurrent commits land linearly or fail with GitLab's error", async () => {
    const { repo, first } = await seededRepo();
    const results = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const own = createDb(env as never);
        try {
          return worded(await commitFiles(own.db, repo, { branch: "main", message: `c${i}`, committer: alice, now: T, actions: [{ action: "create", filePath: `c/${i}.txt`, content: `${i}\n` }] }));
        } finally {
          await own.pool.end();
        }
      }),
    );
    const landed = results.filter((r) => r.ok).map((r) => (r.ok ? r.commit.oid : ""));
    for (const r of results) if (!r.ok) expect(r).toEqual({ ok: false, status: 400, message: "Could not update refs/heads/main. Please refresh and try again." });
    expect(landed.length).toBeGreaterThan(0);
    // A linear history from the tip back to the first commit holding every landed commit.
    const list = await listCommits(db, repo, { offset: 0, limit: 100 });
    if (list.kind !== "ok") throw new Error(list.kind);
    const chain = list.commits.map((c) => c.oid);
    expect(chain[chain.length - 1]).toBe(first);
    for (let i = 0; i + 1 < list.commits.length; i++) expect(list.commits[i].parents).toEqual([chain[i + 1]]);
    expect(new Set(chain.slice(0, -1))).toEqual(new Set(landed));
    const tree = await files(repo, "main");
    expect(Object.keys(tree).filter((p) => p.startsWith("c/"))).toHaveLength(landed.length);
    const events = await db.select().from(pushEvents).where(and(eq(pushEvents.projectId, repo.projectId), eq(pushEvents.ref, "refs/heads/main")));
    expect(events).toHaveLength(landed.length + 1);
  });

  it("creates and deletes branches and tags by compare-and-swap, with push events", async () => {
    const { repo, first } = await seededRepo();
    expect(await createBranch(db, repo, { name: "dev", target: first })).toBe("created");
    expect(await createBranch(db, repo, { name: "dev", target: first })).toBe("exists");
    expect(await createTag(db, repo, { name: "light", target: first, tagger: alice })).toEqual({ kind: "created", target: first, peeled: null });
    const annotated = await createTag(db, repo, { name: "v1", target: first, message: "Release 1", tagger: alice, now: T });
    expect(annotated).toMatchObject({ kind: "created", peeled: first });
    if (annotated.kind !== "created") return;
    const tag = (await readObjects(db, repo.poolId, [annotated.target])).get(annotated.target)!;
    expect(await hashObject("tag", tag.body)).toBe(annotated.target);
    expect(decodeTag(tag.body)).toEqual({ object: first, type: "commit", tag: "v1", tagger: { name: "Alice", email: "alice@example.com", time: 1714557600, tz: "+0000" }, message: "Release 1" });
    expect(await createTag(db, repo, { name: "v1", target: first, message: "again", tagger: alice })).toEqual({ kind: "exists" });
    const resolved = await resolveRevisions(db, repo, ["v1", "light", "dev"]);
    expect([...resolved.values()]).toEqual([first, first, first]);
    expect(await deleteRefWithEvent(db, repo, { ref: "refs/heads/dev", expected: "1".repeat(40) })).toBe("moved");
    expect(await deleteRefWithEvent(db, repo, { ref: "refs/heads/dev", expected: first })).toBe("deleted");
    expect(await readRef(db, repo.projectId, "refs/heads/dev")).toBeNull();
    const events = await db.select().from(pushEvents).where(eq(pushEvents.projectId, repo.projectId)).orderBy(pushEvents.id);
    expect(events.map((e) => [e.ref, e.before === "0".repeat(40), e.after === "0".repeat(40)])).toEqual([
      ["refs/heads/main", true, false],
      ["refs/heads/dev", true, false],
      ["refs/tags/light", true, false],
      ["refs/tags/v1", true, false],
      ["refs/heads/dev", false, true],
    ]);
  });
});
