import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../../functions/kernel/db";
import { decodeUtf8 } from "../../../functions/shared/git/pure/bytes";
import { decodeCommit } from "../../../functions/shared/git/pure/objects";
import { commitTitle, pickCommit as corePick, pickMessage, type PickInput, type PickResult } from "../../../functions/shared/git/operations/pick";
import { pickFailureMessage } from "../../../functions/shared/git/operations/messages";
import { readRef } from "../../../functions/shared/git/store/refs";
import type { Repo } from "../../../functions/shared/git/store/revisions";
import { readObjects } from "../../../functions/shared/git/store/objects";
import { flattenTree, storeSource } from "../../../functions/shared/git/store/trees";
import { commitFiles, type CommitAction } from "../../../functions/shared/git/operations/commit_files";
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
const bob = { name: "Bob", email: "bob@example.com" };
const T = new Date("2024-05-01T10:00:00Z");

/** The core's typed outcome as the endpoint words it (functions/shared/git/operations/messages.ts). */
async function pickCommit(db: Parameters<typeof corePick>[0], repo: Parameters<typeof corePick>[1], input: PickInput) {
  const r: PickResult = await corePick(db, repo, input);
  if (r.ok) return r;
  const f = r.failure;
  if (f.kind === "branch_not_found") return { ok: false as const, status: 404, message: "404 Branch Not Found" };
  if (f.kind === "commit_not_found") return { ok: false as const, status: 404, message: "404 Commit Not Found" };
  if (f.kind === "empty" || f.kind === "conflict") return { ok: false as const, status: 400, message: pickFailureMessage(input.kind), errorCode: f.kind };
  return { ok: false as const, status: 400, message: f.kind, errorCode: null };
}
const LINES = Array.from({ length: 12 }, (_, i) => `line ${i}\n`).join("");

async function setup() {
  const w = await world();
  const project = await w.project({ owner: await w.user() });
  const repo: Repo = { projectId: project.id, poolId: project.id, defaultBranch: "main" };
  const run = async (branch: string, actions: CommitAction[], extra: { startBranch?: string; message?: string; by?: typeof alice } = {}) => {
    const r = await commitFiles(db, repo, { branch, actions, message: extra.message ?? "Change", committer: extra.by ?? alice, now: T, startBranch: extra.startBranch });
    if (!r.ok) throw new Error(r.failure.kind);
    return r.commit.oid;
  };
  await run("main", [
    { action: "create", filePath: "a.txt", content: LINES },
    { action: "create", filePath: "b.txt", content: "b\n" },
  ]);
  return { repo, run };
}

async function tipFiles(repo: Repo, branch: string) {
  const ref = await readRef(db, repo.projectId, `refs/heads/${branch}`);
  const commit = decodeCommit((await readObjects(db, repo.poolId, [ref!.target])).get(ref!.target)!.body);
  const files = await flattenTree(storeSource(db, repo.poolId), commit.tree);
  const blobs = await readObjects(db, repo.poolId, [...files.values()].map((f) => f.oid));
  return Object.fromEntries([...files.values()].map((f) => [f.path, decodeUtf8(blobs.get(f.oid)!.body)]));
}

describe("pickCommit", () => {
  it("cherry-picks onto a branch that changed the same file elsewhere, keeping the original author", async () => {
    const { repo, run } = await setup();
    const picked = await run("feature", [{ action: "update", filePath: "a.txt", content: LINES.replace("line 10", "LINE TEN") }], { startBranch: "main", message: "Shout ten\n", by: bob });
    await run("main", [{ action: "update", filePath: "a.txt", content: LINES.replace("line 1\n", "LINE ONE\n") }]);
    const tip = (await readRef(db, repo.projectId, "refs/heads/main"))!.target;
    const result = await pickCommit(db, repo, { kind: "cherry_pick", commit: picked, branch: "main", user: alice, now: new Date("2024-06-01T00:00:00Z") });
    expect(result.ok).toBe(true);
    if (!result.ok || !result.commit) return;
    expect(result.commit).toMatchObject({
      parents: [tip],
      message: `Shout ten\n\n\n(cherry picked from commit ${picked})`,
      authorName: "Bob",
      committerName: "Alice",
    });
    expect(result.commit.authoredAt.toISOString()).toBe(T.toISOString());
    expect(result.commit.committedAt.toISOString()).toBe("2024-06-01T00:00:00.000Z");
    expect((await tipFiles(repo, "main"))["a.txt"]).toBe(LINES.replace("line 1\n", "LINE ONE\n").replace("line 10", "LINE TEN"));

    // Picking it again changes nothing: `empty`.
    expect(await pickCommit(db, repo, { kind: "cherry_pick", commit: picked, branch: "main", user: alice })).toEqual({
      ok: false,
      status: 400,
      message: "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.",
      errorCode: "empty",
    });
  });

  it("reports a conflict, and dry runs write nothing", async () => {
    const { repo, run } = await setup();
    const picked = await run("feature", [{ action: "update", filePath: "a.txt", content: LINES.replace("line 5", "five (feature)") }], { startBranch: "main" });
    await run("main", [{ action: "update", filePath: "a.txt", content: LINES.replace("line 5", "five (main)") }]);
    const before = await readRef(db, repo.projectId, "refs/heads/main");
    expect(await pickCommit(db, repo, { kind: "cherry_pick", commit: picked, branch: "main", user: alice, dryRun: true })).toMatchObject({ ok: false, errorCode: "conflict" });
    const clean = await run("feature", [{ action: "create", filePath: "new.txt", content: "n\n" }]);
    expect(await pickCommit(db, repo, { kind: "cherry_pick", commit: clean, branch: "main", user: alice, dryRun: true })).toEqual({ ok: true, commit: null });
    expect(await readRef(db, repo.projectId, "refs/heads/main")).toEqual(before);
    expect(await pickCommit(db, repo, { kind: "cherry_pick", commit: clean, branch: "nope", user: alice })).toEqual({ ok: false, status: 404, message: "404 Branch Not Found" });
    expect(await pickCommit(db, repo, { kind: "cherry_pick", commit: "1".repeat(40), branch: "main", user: alice })).toEqual({ ok: false, status: 404, message: "404 Commit Not Found" });
  });

  it("reverts a commit with GitLab's message, as the user, and refuses a second revert", async () => {
    const { repo, run } = await setup();
    const change = await run("main", [
      { action: "update", filePath: "b.txt", content: "bee\n" },
      { action: "create", filePath: "dir/c.txt", content: "c\n" },
      { action: "chmod", filePath: "a.txt", executeFilemode: true },
    ], { message: "Change b and add c\n\nDetails", by: bob });
    await run("main", [{ action: "update", filePath: "a.txt", content: `${LINES}more\n` }]);
    const result = await pickCommit(db, repo, { kind: "revert", commit: change, branch: "main", user: alice, now: T });
    expect(result.ok).toBe(true);
    if (!result.ok || !result.commit) return;
    expect(result.commit).toMatchObject({ message: `Revert "Change b and add c"\n\nThis reverts commit ${change}`, authorName: "Alice", committerName: "Alice" });
    expect(await tipFiles(repo, "main")).toEqual({ "a.txt": `${LINES}more\n`, "b.txt": "b\n" });
    expect(await pickCommit(db, repo, { kind: "revert", commit: change, branch: "main", user: alice })).toMatchObject({
      ok: false,
      message: pickFailureMessage("revert"),
      errorCode: "empty",
    });
    expect(pickFailureMessage("revert")).toBe(
      "Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.",
    );
  });

  it("writes titles and messages as Commit#title and #revert_message do", () => {
    expect(commitTitle("")).toBe("No commit message");
    expect(commitTitle("Fix it\r\nbody")).toBe("Fix it");
    const long = `${"word ".repeat(30)}end`;
    expect(commitTitle(long)).toBe(`${"word ".repeat(14)}word...`);
    expect(commitTitle("x".repeat(120))).toBe(`${"x".repeat(78)}...`);
    expect(pickMessage("revert", "a".repeat(40), "  Title  \nbody")).toBe(`Revert "Title"\n\nThis reverts commit ${"a".repeat(40)}`);
  });
});
