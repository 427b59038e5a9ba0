// The commit planner alone (functions/shared/git/operations/commit_plan.ts): no database. What a commit
// must read, the compare-and-swap it makes, the start point, the `last_commit_id` checks and the
// failures of Commits::CreateService#validate! / Files::MultiService#validate!.
import { describe, expect, it } from "vitest";
import { commitReads, failedCheck, MAX_ACTIONS, planCommit, type CommitFilesInput, type PlanState } from "../../../functions/shared/git/operations/commit_plan";
import type { BranchState, BranchTip } from "../../../functions/shared/git/store/state";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const TAG = "d".repeat(40);
const TREE_A = "1".repeat(40);
const TREE_B = "2".repeat(40);
const TREE_C = "3".repeat(40);

const committer = { name: "Alice", email: "alice@example.com" };
const input = (extra: Partial<CommitFilesInput> = {}): CommitFilesInput => ({
  branch: "main",
  message: "Change",
  committer,
  actions: [{ action: "create", filePath: "new.txt", content: "x" }],
  ...extra,
});

const tip = (target: string, tree: string, generation: number, peeled: string | null = null): BranchTip => ({ target, peeled, tree, generation });
const branches = (tips: Record<string, BranchTip>, startSha: BranchState["startSha"] = null): BranchState => ({
  tips: new Map(Object.entries(tips).map(([name, t]) => [`refs/heads/${name}`, t])),
  hasBranches: Object.keys(tips).length > 0,
  startSha,
  protections: [],
});
const EMPTY = branches({});
const state = (target: BranchState, extra: Partial<PlanState> = {}): PlanState => ({ target, start: target, sameRepo: true, firstAttempt: true, ...extra });

const planned = (i: CommitFilesInput, s: PlanState) => {
  const result = planCommit(i, s);
  if (!result.ok) throw new Error(`expected a plan, got ${result.failure.kind}`);
  return result.plan;
};
const failure = (i: CommitFilesInput, s: PlanState) => {
  const result = planCommit(i, s);
  if (result.ok) throw new Error("expected a failure");
  return result.failure;
};

describe("commitReads", () => {
  it("reads the target and start branches in one statement for one project, the start's apart for another", () => {
    expect(commitReads(input({ branch: "feature", startBranch: "main" }), true)).toEqual({
      names: ["refs/heads/feature", "refs/heads/main"],
      startNames: [],
      startSha: null,
      checkPaths: [],
      checkFrom: null,
    });
    expect(commitReads(input({ branch: "feature", startBranch: "main" }), false)).toMatchObject({ names: ["refs/heads/feature"], startNames: ["refs/heads/main"] });
    // No start branch: the branch itself is the start (`start_branch ||= branch_name`).
    expect(commitReads(input(), true).names).toEqual(["refs/heads/main", "refs/heads/main"]);
  });

  it("asks for history only for the actions whose last_commit_id is checked, each path once", () => {
    const reads = commitReads(
      input({
        actions: [
          { action: "update", filePath: "/a.txt", content: "1", lastCommitId: A },
          { action: "delete", filePath: "a.txt", lastCommitId: A },
          { action: "move", filePath: "to.txt", previousPath: "from.txt", lastCommitId: B },
          { action: "create", filePath: "c.txt", content: "", lastCommitId: C },
          { action: "chmod", filePath: "d.txt", lastCommitId: C },
          { action: "update", filePath: "e.txt", content: "" },
        ],
      }),
      true,
    );
    expect(reads.checkPaths).toEqual(["a.txt", "from.txt"]);
    expect(reads.checkFrom).toEqual({ ref: "refs/heads/main" });
  });

  it("starts the checks' history at the start sha, and asks none for an invalid one", () => {
    const checked = [{ action: "delete" as const, filePath: "a.txt", lastCommitId: A }];
    expect(commitReads(input({ startSha: B, actions: checked }), true)).toMatchObject({ names: ["refs/heads/main"], startSha: B, checkPaths: ["a.txt"], checkFrom: { oid: B } });
    expect(commitReads(input({ startSha: "nope", actions: checked }), true)).toMatchObject({ startSha: null, checkPaths: [], checkFrom: null });
  });
});

describe("planCommit", () => {
  it("commits on an existing branch: swap from its tip, parent its commit, checks from there", () => {
    const plan = planned(
      input({ actions: [{ action: "update", filePath: "dir/a.txt", content: "1", lastCommitId: A }, { action: "move", filePath: "x/b", previousPath: "y/c" }] }),
      state(branches({ main: tip(A, TREE_A, 7) })),
    );
    expect(plan).toEqual({
      targetRef: "refs/heads/main",
      before: A,
      parent: A,
      parentTree: TREE_A,
      parentGeneration: 7,
      repoEmpty: false,
      initializeBranch: null,
      checks: [{ path: "dir/a.txt", expected: A }],
      checkTip: A,
      touched: ["dir/a.txt", "x/b", "y/c"],
    });
  });

  it("makes the first commit of an empty repository: no parent, the ref must not exist, the branch becomes HEAD", () => {
    const plan = planned(input({ actions: [{ action: "update", filePath: "a", content: "", lastCommitId: A }] }), state(EMPTY));
    expect(plan).toMatchObject({ before: null, parent: null, parentTree: null, repoEmpty: true, initializeBranch: "main", checks: [], checkTip: null });
  });

  it("creates a branch from start_branch (peeled) or start_sha", () => {
    const repo = branches({ main: tip(TAG, TREE_B, 3, B) }, { tree: TREE_C, generation: 9 });
    expect(planned(input({ branch: "feature", startBranch: "main" }), state(repo))).toMatchObject({ targetRef: "refs/heads/feature", before: null, parent: B, parentTree: TREE_B, parentGeneration: 3, checkTip: B });
    expect(planned(input({ branch: "feature", startSha: C }), state(repo))).toMatchObject({ before: null, parent: C, parentTree: TREE_C, parentGeneration: 9, checkTip: C });
  });

  it("refuses what Commits::CreateService#validate! refuses", () => {
    const repo = branches({ main: tip(A, TREE_A, 1), feature: tip(B, TREE_B, 2) });
    const many = Array.from({ length: MAX_ACTIONS + 1 }, (_, i) => ({ action: "create" as const, filePath: `f${i}`, content: "" }));
    expect(failure(input({ actions: many }), state(repo))).toEqual({ kind: "too_many_actions", max: MAX_ACTIONS });
    expect(failure(input({ startBranch: "main", startSha: C }), state(repo))).toEqual({ kind: "start_branch_and_sha" });
    expect(failure(input({ startSha: "abc" }), state(repo))).toEqual({ kind: "invalid_start_sha", sha: "abc" });
    expect(failure(input({ startSha: C }), state(branches({ main: tip(A, TREE_A, 1) })))).toEqual({ kind: "branch_exists", branch: "main" });
    expect(failure(input({ branch: "other", startSha: C }), state(repo))).toEqual({ kind: "start_sha_not_found", sha: C });
    expect(failure(input({ branch: "gone" }), state(repo))).toEqual({ kind: "not_on_branch" });
    expect(failure(input({ branch: "feature", startBranch: "main" }), state(repo))).toEqual({ kind: "branch_exists", branch: "feature" });
    expect(failure(input({ branch: "bad..name", startBranch: "main" }), state(repo))).toEqual({ kind: "cannot_create_branch", branch: "bad..name", reason: "invalid" });
    expect(failure(input({ branch: "bad..name" }), state(EMPTY))).toEqual({ kind: "cannot_create_branch", branch: "bad..name", reason: "invalid" });
  });

  it("builds on the branch another writer created meanwhile when it retries, or on any tip with force", () => {
    const repo = branches({ main: tip(A, TREE_A, 1), feature: tip(B, TREE_B, 2) });
    expect(planned(input({ branch: "feature", startBranch: "main" }), state(repo, { firstAttempt: false }))).toMatchObject({ before: B, parent: A });
    expect(planned(input({ branch: "feature", startBranch: "main", force: true }), state(repo))).toMatchObject({ before: B, parent: A });
  });

  it("starts from another project's branch when the start repository differs", () => {
    const target = branches({ main: tip(A, TREE_A, 1) });
    const start = branches({ main: tip(B, TREE_B, 4) });
    expect(planned(input({ branch: "feature", startBranch: "main" }), { target, start, sameRepo: false, firstAttempt: true })).toMatchObject({ before: null, parent: B, checkTip: B, repoEmpty: false });
  });
});

describe("failedCheck", () => {
  const plan = planned(
    input({
      actions: [
        { action: "update", filePath: "a", content: "", lastCommitId: A },
        { action: "delete", filePath: "b", lastCommitId: B },
      ],
    }),
    state(branches({ main: tip(C, TREE_C, 5) })),
  );

  it("passes when every path's last commit is the given one, or no commit touched the path", () => {
    expect(failedCheck(plan, new Map([["a", A], ["b", B]]))).toBeNull();
    expect(failedCheck(plan, new Map([["a", A], ["b", null]]))).toBeNull();
  });

  it("names the first path whose last commit differs", () => {
    expect(failedCheck(plan, new Map([["a", C], ["b", C]]))).toEqual({ kind: "file_changed", path: "a" });
    expect(failedCheck(plan, new Map([["a", A], ["b", C]]))).toEqual({ kind: "file_changed", path: "b" });
  });
});
