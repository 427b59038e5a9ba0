// GET/HEAD /projects/:id/repository/files/:file_path/blame. Attribution is checked here on a small
// history whose answer follows from git's rules by hand (edits, an insert, a deletion, a merge taking one
// file whole from its second parent); test/e2e/git_http.test.mjs compares it with `git blame
// --porcelain` on histories pushed with the git CLI.
import { describe, expect, it } from "vitest";
import { BlameTooLargeError, blameFile, mergeBranches, readFileAt, commitTree } from "../../functions/shared/git";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { commitTo, repoOfProject } from "../helpers/git";
import { withDb } from "../helpers/db";
import { type Json } from "../helpers/api";

const blamePath = (project: { id: number }, path: string) => `/projects/${project.id}/repository/files/${encodeURIComponent(path)}/blame`;

/**
 * c1 f.txt a b c d e, g.txt 1 2 │ c2 b → B │ topic (from c2): c3 inserts X after c, appends 3 to g.txt │
 * c4 on main: e → f │ merge topic into main (g.txt is topic's blob) │ c6: a → A.
 */
async function history(w: World) {
  const owner = await w.user();
  const project = await w.project({ owner });
  const at = (day: number) => new Date(`2024-02-0${day}T10:00:00Z`);
  const c1 = await commitTo(project, "main", [
    { action: "create", filePath: "f.txt", content: "a\nb\nc\nd\ne\n" },
    { action: "create", filePath: "g.txt", content: "1\n2\n" },
  ], { message: "Initial", at: at(1) });
  const c2 = await commitTo(project, "main", [{ action: "update", filePath: "f.txt", content: "a\nB\nc\nd\ne\n" }], { message: "Edit b", at: at(2) });
  const c3 = await commitTo(project, "topic", [
    { action: "update", filePath: "f.txt", content: "a\nB\nc\nX\nd\ne\n" },
    { action: "update", filePath: "g.txt", content: "1\n2\n3\n" },
  ], { message: "Insert X", startBranch: "main", at: at(3), author: { name: "Bob", email: "bob@example.com" } });
  const c4 = await commitTo(project, "main", [{ action: "update", filePath: "f.txt", content: "a\nB\nc\nd\nf\n" }], { message: "e to f", at: at(4) });
  const merged = await withDb((db) =>
    mergeBranches(db, repoOfProject(project), {
      sourceBranch: "topic",
      targetBranch: "main",
      expectedSource: c3,
      method: "merge",
      squash: false,
      mergeMessage: "Merge topic",
      squashMessage: "",
      squashMessageGiven: false,
      user: { name: "Alice", email: "alice@example.com" },
      squashAuthor: { name: "Alice", email: "alice@example.com" },
      userId: null,
      removeSource: false,
      now: at(5),
    }),
  );
  if (!merged.ok || !merged.mergeCommitSha) throw new Error(`merge failed: ${JSON.stringify(merged)}`);
  const c6 = await commitTo(project, "main", [{ action: "update", filePath: "f.txt", content: "A\nB\nc\nX\nd\nf\n" }], { message: "Edit a", at: at(6) });
  return { owner, project, api: w.as(owner), commits: { c1, c2, c3, c4, merge: merged.mergeCommitSha, c6 } };
}

const shape = (body: unknown) => (body as Json[]).map((group) => [group.commit.id, group.lines]);

describe("GET /projects/:id/repository/files/:file_path/blame", () => {
  it("groups consecutive lines by the commit that last changed them, through edits, an insert, a deletion and a merge", async () => {
    const w = await world();
    const { project, api, commits: c } = await history(w);
    const res = await api.get(blamePath(project, "f.txt"), { query: { ref: "main" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(shape(body)).toEqual([
      [c.c6, ["A"]],
      [c.c2, ["B"]],
      [c.c1, ["c"]],
      [c.c3, ["X"]],
      [c.c1, ["d"]],
      [c.c4, ["f"]],
    ]);
    expect(Object.keys(body[3].commit)).toEqual([
      "id",
      "parent_ids",
      "message",
      "authored_date",
      "author_name",
      "author_email",
      "committed_date",
      "committer_name",
      "committer_email",
    ]);
    expect(body[3].commit).toMatchObject({ id: c.c3, parent_ids: [c.c2], message: "Insert X", author_name: "Bob", author_email: "bob@example.com", authored_date: "2024-02-03T10:00:00.000+00:00" });
    expect(res.headers.get("x-gitlab-blob-id")).toBeTruthy();
    expect(res.headers.get("x-gitlab-last-commit-id")).toBe(c.c6);
    // A merge whose blob is its second parent's passes every line to that parent.
    const g = await api.get(blamePath(project, "g.txt"), { query: { ref: "main" } });
    expect(shape(await g.json())).toEqual([
      [c.c1, ["1", "2"]],
      [c.c3, ["3"]],
    ]);
    // At an older ref, by id: the merge itself changed no line.
    const atMerge = await api.get(blamePath(project, "f.txt"), { query: { ref: c.merge } });
    expect(shape(await atMerge.json())).toEqual([
      [c.c1, ["a"]],
      [c.c2, ["B"]],
      [c.c1, ["c"]],
      [c.c3, ["X"]],
      [c.c1, ["d"]],
      [c.c4, ["f"]],
    ]);
  });

  it("follows a file through an exact rename (git's find_rename), not through a delete and an add", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const c1 = await commitTo(project, "main", [{ action: "create", filePath: "old.txt", content: "one\ntwo\n" }], { message: "Create" });
    const c2 = await commitTo(project, "main", [{ action: "move", previousPath: "old.txt", filePath: "dir/new.txt" }], { message: "Move" });
    const c3 = await commitTo(project, "main", [{ action: "update", filePath: "dir/new.txt", content: "one\ntwo\nthree\n" }], { message: "Append" });
    const c4 = await commitTo(project, "main", [
      { action: "delete", filePath: "dir/new.txt" },
      { action: "create", filePath: "again.txt", content: "one\ntwo\nthree\nfour\n" },
    ], { message: "Delete and add" });
    const api = w.as(owner);
    expect(shape(await (await api.get(blamePath(project, "dir/new.txt"), { query: { ref: c3 } })).json())).toEqual([
      [c1, ["one", "two"]],
      [c3, ["three"]],
    ]);
    expect(c2).toBeTruthy();
    // Differs from GitLab: git pairs the deleted and the added file (75% similar) and gives `one`, `two`
    // to c1 and `three` to c3; only exact renames are followed here, so every line is the adding commit's.
    expect(shape(await (await api.get(blamePath(project, "again.txt"), { query: { ref: c4 } })).json())).toEqual([[c4, ["one", "two", "three", "four"]]]);
  });

  it("blames only range[start]..range[end], cut to the file; a range past the end is empty", async () => {
    const w = await world();
    const { project, api, commits: c } = await history(w);
    const get = (start: string, end: string) => api.get(blamePath(project, "f.txt"), { query: { ref: "main", "range[start]": start, "range[end]": end } });
    expect(shape(await (await get("2", "3")).json())).toEqual([
      [c.c2, ["B"]],
      [c.c1, ["c"]],
    ]);
    expect(shape(await (await get("5", "100")).json())).toEqual([
      [c.c1, ["d"]],
      [c.c4, ["f"]],
    ]);
    expect(await statusAndBody(await get("7", "9"))).toEqual([200, []]);
    expect(await statusAndBody(await get("3", "3"))).toEqual([200, [expect.objectContaining({ lines: ["c"] })]]);
  });

  it("answers Grape's 400s for bad parameters and GitLab's for a reversed range", async () => {
    const w = await world();
    const { project, api } = await history(w);
    const get = (query: Record<string, string>) => api.get(blamePath(project, "f.txt"), { query });
    expect(await statusAndBody(await get({}))).toEqual([400, { error: "ref is missing" }]);
    expect(await statusAndBody(await get({ ref: " " }))).toEqual([400, { error: "ref is empty" }]);
    expect(await statusAndBody(await get({ ref: "main", "range[start]": "0", "range[end]": "2" }))).toEqual([400, { error: "range[start] does not have a valid value" }]);
    expect(await statusAndBody(await get({ ref: "main", "range[start]": "x", "range[end]": "-1" }))).toEqual([
      400,
      { error: "range[start] is invalid, range[end] does not have a valid value" },
    ]);
    expect(await statusAndBody(await get({ ref: "main", "range[start]": "1" }))).toEqual([400, { error: "range[end] is missing" }]);
    expect(await statusAndBody(await get({ ref: "main", "range[start]": "", "range[end]": "2" }))).toEqual([400, { error: "range[start] is empty" }]);
    expect(await statusAndBody(await get({ ref: "main", range: "1-2" }))).toEqual([400, { error: "range is invalid" }]);
    expect(await statusAndBody(await get({ ref: "main", "range[start]": "3", "range[end]": "2" }))).toEqual([
      400,
      { message: "range[start] must be less than or equal to range[end]" },
    ]);
    expect(await statusAndBody(await get({ ref: "nope" }))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await api.get(blamePath(project, "nope.txt"), { query: { ref: "main" } }))).toEqual([404, { message: "404 File Not Found" }]);
    expect(await statusAndBody(await api.get(blamePath(project, "../f.txt"), { query: { ref: "main" } }))).toEqual([400, { error: "file_path should be a valid file path" }]);
  });

  it("answers HEAD with the file's headers only", async () => {
    const w = await world();
    const { project, api, commits: c } = await history(w);
    const res = await api.head(blamePath(project, "f.txt"), { query: { ref: "main" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect(res.headers.get("x-gitlab-file-path")).toBe("f.txt");
    expect(res.headers.get("x-gitlab-last-commit-id")).toBe(c.c6);
    expect((await api.head(blamePath(project, "nope.txt"), { query: { ref: "main" } })).status).toBe(404);
  });

  it("reads the history in a number of statements independent of its length", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    let content = "";
    for (let i = 0; i < 40; i++) {
      content += `line ${i}\n`;
      await commitTo(project, "main", [{ action: i === 0 ? "create" : "update", filePath: "long.txt", content }], { message: `Line ${i}` });
      if (i % 2) await commitTo(project, "main", [{ action: i === 1 ? "create" : "update", filePath: "other.txt", content: `${i}\n` }], { message: `Other ${i}` });
    }
    const res = await w.as(owner).get(blamePath(project, "long.txt"), { query: { ref: "main" } });
    const body = (await res.json()) as Json[];
    expect(body).toHaveLength(40);
    expect(body.map((g) => g.commit.message)).toEqual(Array.from({ length: 40 }, (_, i) => `Line ${i}`));
    expect(Number(res.headers.get("x-query-count"))).toBeLessThanOrEqual(14);
  });

  it("stops at its bound of commits that changed the file (the route answers 503)", async () => {
    const w = await world();
    const { project, commits: c } = await history(w);
    await withDb(async (db) => {
      const repo = repoOfProject(project);
      const file = (await readFileAt(db, repo, (await commitTree(db, repo, c.c6))!, "f.txt"))!;
      const input = { commit: c.c6, path: "f.txt", blob: file.oid, content: file.content };
      await expect(blameFile(db, project.id, { ...input, maxSuspects: 3 })).rejects.toBeInstanceOf(BlameTooLargeError);
      expect((await blameFile(db, project.id, { ...input, maxSuspects: 6 })).commits).toEqual([c.c6, c.c2, c.c1, c.c3, c.c1, c.c4]);
    });
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(blamePath(project, "README.md"), { query: { ref: "main" } }));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(blamePath(project, "README.md"), { query: { ref: "main" } }));
});
