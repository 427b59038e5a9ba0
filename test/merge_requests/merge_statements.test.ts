// Statement counts of a merge: the merge endpoint and auto-merge run one merge
// service, which reads the branch tips with the protected-branch rules once and runs the trial merge
// once. Budgets are asserted; the counts are printed for the report.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../functions/kernel/db";
import { autoMergeAfterPipeline } from "../../functions/merge_requests/auto_merge";
import { commit, mergeFixture, queryCount, type Json } from "../helpers/api";
import { rows } from "../helpers/db";
import { world, type World } from "../helpers/world";
import { branchHead } from "./support";

const mergePath = (project: { id: number }, iid: number) => `/projects/${project.id}/merge_requests/${iid}/merge`;

/** A merge request whose target moved on since the source branched: a real three-way merge. */
async function threeWay(w: World) {
  const fixture = await mergeFixture(w);
  const moved = await commit(w, fixture.owner, fixture.project, "main", "Elsewhere", [{ action: "create", file_path: "z.txt", content: "z\n" }]);
  return { ...fixture, moved };
}

describe("statement counts of merging", () => {
  it("PUT …/merge reads the tips and rules once and runs the trial merge once", async () => {
    const w = await world();
    const counts: Record<string, number> = {};

    // Never checked: the merge's own trial merge records `merge_status` and the diff version.
    const first = await threeWay(w);
    const res = await w.as(first.owner).put(mergePath(first.project, first.mr.iid), { json: { should_remove_source_branch: true } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).state).toBe("merged");
    expect(await branchHead(w, first.project, first.feature)).toBeNull();
    counts["merge, unchecked"] = queryCount(res);

    // Checked by a GET before: nothing to record.
    const second = await threeWay(w);
    expect((await w.as(second.owner).get(`/projects/${second.project.id}/merge_requests/${second.mr.iid}`)).status).toBe(200);
    const checked = await w.as(second.owner).put(mergePath(second.project, second.mr.iid), { json: { should_remove_source_branch: true } });
    expect(checked.status).toBe(200);
    counts["merge, checked"] = queryCount(checked);

    console.log("statement counts", JSON.stringify(counts));
    // Before the merge service: 25 and 19 (the tips read three times, the trial merge run three
    // times, the merge request row loaded three times, the protections twice). Now 14 and 12: the
    // token, the project, the merge request; the tips with the protections; the merge base walk
    // (which brings the base's tree); the trees of the trial merge (unless cached); the check's
    // record (unchecked only); the approval rules; the closing issues for the message; the blobs for
    // the new commit's line counts; the write; the source branch's removal; marked merged; the merge
    // request presented.
    expect(counts["merge, unchecked"]).toBeLessThanOrEqual(14);
    expect(counts["merge, checked"]).toBeLessThanOrEqual(12);
  });

  it("auto-merge after the head pipeline succeeds runs the same service in as few statements", async () => {
    const w = await world();
    const { owner, project, feature, head, mr } = await mergeFixture(w);
    // The merge was asked for while the head pipeline ran (its check recorded the head it waits on);
    // then the target moved on.
    expect((await w.as(owner).get(`/projects/${project.id}/merge_requests/${mr.iid}`)).status).toBe(200);
    await rows(w, sql`UPDATE merge_requests SET merge_when_pipeline_succeeds = true, merge_user_id = ${owner.id} WHERE project_id = ${project.id} AND iid = ${mr.iid}`);
    await commit(w, owner, project, "main", "Later", [{ action: "create", file_path: "later.txt", content: "l\n" }]);
    let statements = 0;
    const { db, pool } = createDb(env as never, () => statements++);
    try {
      await autoMergeAfterPipeline(env as never, db, { id: 0, projectId: project.id, ref: feature, sha: head, tag: false, status: "success" });
    } finally {
      await pool.end();
    }
    const [row] = await rows(w, sql`SELECT state, merged_by_id FROM merge_requests WHERE project_id = ${project.id} AND iid = ${mr.iid}`);
    expect(row).toMatchObject({ state: "merged", merged_by_id: owner.id });
    console.log("statement counts", JSON.stringify({ "auto-merge, target moved": statements }));
    // Before the merge service: 23. Now 14: the waiting merge requests, the merge user, the project,
    // the merge request; then as the endpoint (no token, no presentation, no source branch removal),
    // the trees of the trial merge and of the new diff version read cold (this isolate's cache).
    expect(statements).toBeLessThanOrEqual(14);
  });
});
