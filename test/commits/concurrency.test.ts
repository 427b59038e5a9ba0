// The concurrency contract (docs/git.md, "Writing commits"): concurrent commits to one branch either land one on
// top of another or fail with the error body; nothing that answered 201 is lost.
import { describe, expect, it } from "vitest";
import { commitTree, listTree } from "../../functions/shared/git/store/read";
import { readRef } from "../../functions/shared/git/store/refs";
import { repoOf } from "../../functions/shared/git/store/revisions";
import { world } from "../helpers/world";
import { commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const WRITERS = 20;

describe("POST /projects/:id/repository/commits (concurrent writers on one branch)", () => {
  it(`keeps every landed commit of ${WRITERS} concurrent writers in one linear history`, async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        api.post(commitsPath(project), {
          json: { branch: "main", commit_message: `Writer ${i}`, actions: [{ action: "create", file_path: `w/${i}.txt`, content: `${i}\n` }] },
        }),
      ),
    );
    const results = await Promise.all(responses.map(async (res, i) => ({ i, status: res.status, body: (await res.json()) as Json })));
    const landed = results.filter((r) => r.status === 201);
    const failed = results.filter((r) => r.status !== 201);
    expect(landed.length).toBeGreaterThan(0);
    // Every failure is GitLab's error shape: a 400 with a message.
    for (const f of failed) expect([f.status, f.body]).toEqual([400, { message: "Could not update refs/heads/main. Please refresh and try again." }]);

    // Walk the first parents from the branch head; the full history is the same list (linear).
    const firstParents = (await (await api.get(commitsPath(project), { query: { first_parent: true, per_page: 100 } })).json()) as Json[];
    const everything = (await (await api.get(commitsPath(project), { query: { per_page: 100 } })).json()) as Json[];
    expect(everything.map((c) => c.id)).toEqual(firstParents.map((c) => c.id));
    expect(firstParents.every((c) => c.parent_ids.length <= 1)).toBe(true);
    for (let k = 0; k < firstParents.length - 1; k++) expect(firstParents[k].parent_ids).toEqual([firstParents[k + 1].id]);
    expect(firstParents).toHaveLength(commits.length + landed.length);
    const history = new Set(firstParents.map((c) => c.id));
    for (const l of landed) expect(history.has(l.body.id)).toBe(true);
    expect(new Set(firstParents.slice(0, landed.length).map((c) => c.message))).toEqual(new Set(landed.map((l) => `Writer ${l.i}`)));

    // No lost update: the head's tree holds exactly the files of the writers that landed.
    const files = await w.db(async (db) => {
      const repo = repoOf({ id: project.id, defaultBranch: "main" });
      const head = await readRef(db, project.id, "refs/heads/main");
      const tree = await commitTree(db, repo, head!.target);
      return (await listTree(db, repo, tree!, "w", false))!.map((e) => e.name);
    });
    expect(files.sort()).toEqual(landed.map((l) => `${l.i}.txt`).sort());
  }, 60_000);
});
