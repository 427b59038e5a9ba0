import { describe, expect, it } from "vitest";
import type { ProjectWithAccess } from "../../functions/kernel/abilities";
import { Access, Visibility } from "../../functions/kernel/access";
import type { Actor } from "../../functions/kernel/env";
import type { WriteContext } from "../../functions/merge_requests/queries";
import {
  mergeRequestUpdateNeeds,
  planMergeRequestUpdate,
  type UpdateInput,
  type WriteScope,
} from "../../functions/merge_requests/services";
import type { MergeRequestWithAssignees } from "../../functions/shared/issuables/policy";
import { TodoAction } from "../../functions/shared/issuables/todos";

/**
 * The merge request update planner alone (no database): for one request, what the read must load and
 * what the plan changes, notes and to-dos. The API's behaviour is tested in merge_request.test.ts.
 */

const ACTOR_ID = 10;

function scope(accessLevel: number): WriteScope {
  const project = {
    id: 1,
    path: "p",
    fullPath: "g/p",
    namespaceId: 5,
    archived: false,
    issuesEnabled: true,
    mergeRequestsEnabled: true,
    defaultBranch: "main",
    visibilityLevel: Visibility.PRIVATE,
    namespace: { type: "Group", fullPath: "g", traversalIds: [5] },
    accessLevel,
  } as unknown as ProjectWithAccess;
  const actor = { user: { id: ACTOR_ID, username: "actor" }, isAdmin: false, scopes: ["api"], tokenId: 1, sudoFrom: null } as unknown as Actor;
  return { project, actor, baseUrl: "http://localhost" };
}

function mr(extra: Partial<MergeRequestWithAssignees> = {}): MergeRequestWithAssignees {
  return {
    id: 50,
    iid: 1,
    projectId: 1,
    sourceProjectId: 1,
    title: "Old",
    description: null,
    state: "opened",
    sourceBranch: "feature",
    targetBranch: "main",
    milestoneId: null,
    discussionLocked: null,
    assigneeIds: [],
    reviewerIds: [],
    ...extra,
  } as unknown as MergeRequestWithAssignees;
}

const lookup = (extra: Partial<WriteContext> = {}): WriteContext => ({
  duplicateIid: null,
  inForkNetwork: true,
  readableUserIds: [],
  mentioned: [],
  milestoneId: null,
  labels: [],
  issues: [],
  pendingTodoUserIds: [],
  labelIds: [],
  referencedIssueIds: [],
  ...extra,
});

function plan(input: UpdateInput, opts: { access?: number; current?: Partial<MergeRequestWithAssignees>; loaded?: Partial<WriteContext> } = {}) {
  const s = scope(opts.access ?? Access.DEVELOPER);
  const current = mr(opts.current);
  const needs = mergeRequestUpdateNeeds(current, input, s);
  return { needs, plan: planMergeRequestUpdate(current, input, s, needs, lookup(opts.loaded)) };
}

describe("mergeRequestUpdateNeeds", () => {
  it("asks for assignees and reviewers, old and new mentions, the milestone and trimmed label titles", () => {
    const { needs } = plan({ description: "@bob hi", assigneeIds: [21, 0], reviewerIds: [22], milestoneId: 7, labels: [" a "], addLabels: ["b"] }, {
      current: { description: "cc @alice" },
    });
    expect(needs.lookup).toMatchObject({
      mergeRequestId: 50,
      branches: { source: "feature", target: "main" },
      userIds: [21, 22],
      usernames: ["alice", "bob"],
      milestoneId: 7,
      labelTitles: ["a", "b"],
    });
  });

  it("a closed merge request checks no branches; a reporter's metadata is not asked for", () => {
    const { needs } = plan({ assigneeIds: [21], milestoneId: 7, labels: ["a"] }, { access: Access.REPORTER, current: { state: "closed" } });
    expect(needs.lookup).toMatchObject({ branches: null, userIds: [], milestoneId: null, labelTitles: [] });
  });
});

describe("planMergeRequestUpdate", () => {
  const rows: { name: string; input: UpdateInput; access?: number; current?: Partial<MergeRequestWithAssignees>; loaded?: Partial<WriteContext>; expect: Record<string, unknown> }[] = [
    {
      name: "nothing changes: no notes, no to-dos, the actor's to-dos kept",
      input: { title: "Old" },
      expect: { notes: [], todos: [], resolveOwn: false, closing: false, reopening: false },
    },
    {
      name: "draft prefix: a draft note only",
      input: { title: "Draft: Old" },
      expect: { notes: ["marked this merge request as **draft**"], resolveOwn: true },
    },
    {
      name: "close resolves the actor's to-dos and records no closing issues",
      input: { stateEvent: "close" },
      expect: { closing: true, resolveOwn: true, closingIds: null },
    },
    {
      name: "reopen",
      input: { stateEvent: "reopen" },
      current: { state: "closed" },
      expect: { reopening: true, closing: false, resolveOwn: false },
    },
    {
      name: "assignees and reviewers who may read it; to-dos in TodoService's order, none for pending ones",
      input: { assigneeIds: [21, 23], reviewerIds: [22, 24] },
      current: { assigneeIds: [20] },
      loaded: { readableUserIds: [21, 22, 24], pendingTodoUserIds: [24] },
      expect: {
        addedAssignees: [21],
        removedAssignees: [20],
        addedReviewers: [22, 24],
        removedReviewers: [],
        todos: [
          { userId: 21, action: TodoAction.assigned },
          { userId: 22, action: TodoAction.review_requested },
        ],
      },
    },
    {
      name: "a reporter's assignees, milestone, labels and lock are dropped",
      access: Access.REPORTER,
      input: { assigneeIds: [21], milestoneId: 7, labels: ["a"], discussionLocked: true },
      loaded: { readableUserIds: [21], milestoneId: 7, labels: [{ id: 1, title: "a" }] },
      expect: { addedAssignees: [], milestoneId: null, addLabelIds: [], lockChanged: false, notes: [] },
    },
    {
      name: "milestone 0 removes it; labels replace, missing ones are created",
      input: { milestoneId: 0, labels: ["a", "new"] },
      current: { milestoneId: 3 },
      loaded: { labelIds: [2], labels: [{ id: 1, title: "a" }] },
      expect: { milestoneId: null, addLabelIds: [1], removeLabelIds: [2], newTitles: ["new"], resolveOwn: true },
    },
    {
      name: "new mentions only: directly addressed before mentioned, the already mentioned skipped",
      input: { description: "@bob look, cc @carol @alice" },
      current: { description: "@alice" },
      loaded: { mentioned: [{ id: 21, username: "alice" }, { id: 22, username: "bob" }, { id: 23, username: "carol" }] },
      expect: {
        notes: ["changed the description"],
        todos: [
          { userId: 22, action: TodoAction.directly_addressed },
          { userId: 23, action: TodoAction.mentioned },
        ],
      },
    },
    {
      name: "target branch and lock notes",
      input: { targetBranch: "develop", discussionLocked: true },
      expect: { notes: ["changed target branch from `main` to `develop`", "locked this merge request"], lockChanged: true, resolveOwn: true },
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      expect(plan(row.input, row).plan).toMatchObject(row.expect);
    });
});
