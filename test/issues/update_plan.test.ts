import { describe, expect, it } from "vitest";
import type { ProjectWithAccess } from "../../functions/kernel/abilities";
import { Access, Visibility } from "../../functions/kernel/access";
import type { Actor } from "../../functions/kernel/env";
import type { WriteContext } from "../../functions/issues/queries/write";
import type { UpdateParams } from "../../functions/issues/params";
import { EMPTY_CONTEXT, issueUpdateNeeds, planIssueUpdate } from "../../functions/issues/update_plan";
import type { IssueRow } from "../../functions/shared/issuables/issue_preload";
import { TodoAction } from "../../functions/shared/issuables/todos";

/**
 * The update planner alone (functions/issues/update_plan.ts): no database, no Worker. What the API
 * makes of a plan is tested end to end in update.test.ts; here each row says, for one request, what
 * the plan changes and which notes, events and to-dos follow.
 */

const NOW = new Date("2026-01-02T03:04:05Z");
const ACTOR_ID = 10;

function actor(isAdmin = false): Actor {
  return { user: { id: ACTOR_ID, username: "actor" } as Actor["user"], isAdmin, scopes: ["api"], tokenId: 1, sudoFrom: null };
}

function project(accessLevel: number, extra: Partial<ProjectWithAccess> = {}): ProjectWithAccess {
  return {
    id: 1,
    archived: false,
    issuesEnabled: true,
    visibilityLevel: Visibility.PRIVATE,
    namespace: { type: "Group", traversalIds: [5] },
    accessLevel,
    ...extra,
  } as unknown as ProjectWithAccess;
}

const alice = { id: 21, username: "alice", name: "Alice", state: "active", avatarUrl: null, email: "" };
const bob = { id: 22, username: "bob", name: "Bob", state: "active", avatarUrl: null, email: "" };

function issue(extra: Partial<IssueRow> = {}): IssueRow {
  return {
    id: 100,
    projectId: 1,
    title: "Old title",
    description: "text",
    state: "opened",
    confidential: false,
    discussionLocked: null,
    dueDate: null,
    weight: null,
    issueType: "issue",
    milestoneId: null,
    authorId: 30,
    assignees: [],
    labels: [],
    ...extra,
  } as unknown as IssueRow;
}

const user = (id: number, username: string, access: number, more: { admin?: boolean; external?: boolean } = {}) => ({
  id,
  username,
  access,
  admin: more.admin ?? false,
  external: more.external ?? false,
});

type Row = {
  name: string;
  current?: Partial<IssueRow>;
  params: Partial<UpdateParams>;
  /** Keys the client sent; defaults to the keys of `params`. */
  sent?: string[];
  access?: number;
  admin?: boolean;
  loaded?: Partial<WriteContext>;
  expect: null | {
    changes?: Record<string, unknown>;
    notes?: string[];
    todos?: { userId: number; action: number }[];
    milestoneEvent?: unknown;
    stateEvent?: unknown;
    labels?: { create?: string[]; add?: number[]; remove?: number[] };
    assignees?: { add?: number[]; remove?: number[] };
    resolveActorTodos?: boolean;
    openIssuesDelta?: number;
  };
};

const rows: Row[] = [
  { name: "nothing different: no plan (no write)", params: { title: "Old title" }, expect: null },
  { name: "a blank-padded title equal to the current one changes nothing", params: { title: "  Old title " }, expect: null },
  {
    name: "title: the column, the diff note, the actor's to-dos resolved",
    params: { title: "New title" },
    expect: { changes: { title: "New title" }, notes: ["changed title from **{-Old-} title** to **{+New+} title**"], resolveActorTodos: true },
  },
  {
    name: "description sent as null clears it",
    params: { description: null },
    expect: { changes: { description: null }, notes: ["changed the description"], resolveActorTodos: true },
  },
  {
    name: "a new mention gets a to-do; one already in the old text does not",
    current: { description: "cc @alice" },
    params: { description: "cc @alice @bob" },
    loaded: { users: [user(21, "alice", Access.DEVELOPER), user(22, "bob", Access.DEVELOPER)] },
    expect: { changes: { description: "cc @alice @bob" }, notes: ["changed the description"], todos: [{ userId: 22, action: TodoAction.mentioned }] },
  },
  {
    name: "a leading address is a directly_addressed to-do",
    params: { description: "@bob please look" },
    loaded: { users: [user(22, "bob", Access.GUEST)] },
    expect: { todos: [{ userId: 22, action: TodoAction.directly_addressed }] },
  },
  {
    name: "a mentioned user who cannot read the confidential issue gets no to-do",
    current: { confidential: true },
    params: { description: "cc @bob" },
    loaded: { users: [user(22, "bob", Access.GUEST)] },
    expect: { todos: [] },
  },
  {
    name: "guest: metadata is dropped, the title still changes",
    access: Access.GUEST,
    params: { title: "T2", labels: ["x"], due_date: "2026-05-01", confidential: true, discussion_locked: true, milestone_id: 7 },
    expect: { changes: { title: "T2" }, labels: {}, notes: ["changed title from **{-Old title-}** to **{+T2+}**"] },
  },
  {
    name: "guest with only metadata: no plan",
    access: Access.GUEST,
    params: { confidential: true, assignee_ids: [21] },
    expect: null,
  },
  {
    name: "due date: cast, noted in GitLab's long form",
    params: { due_date: "2026-09-05" },
    expect: { changes: { dueDate: "2026-09-05" }, notes: ["changed due date to September  5, 2026"], resolveActorTodos: false },
  },
  {
    name: "due date that is not a date removes it",
    current: { dueDate: "2026-01-01" },
    params: { due_date: "soon" },
    expect: { changes: { dueDate: null }, notes: ["removed due date"] },
  },
  {
    name: "lock then confidentiality notes",
    params: { discussion_locked: true, confidential: true },
    expect: { changes: { discussionLocked: true, confidential: true }, notes: ["locked this issue", "made the issue confidential"] },
  },
  {
    name: "milestone added: the column and an add event",
    params: { milestone_id: 7 },
    loaded: { milestoneId: 7 },
    expect: { changes: { milestoneId: 7 }, milestoneEvent: { action: "add", milestoneId: 7 }, resolveActorTodos: true },
  },
  {
    name: "a milestone the project cannot use removes the current one",
    current: { milestoneId: 3 },
    params: { milestone_id: 99 },
    loaded: { milestoneId: null },
    expect: { changes: { milestoneId: null }, milestoneEvent: { action: "remove", milestoneId: 3 } },
  },
  {
    name: "milestone_id 0 when there is none: no plan",
    params: { milestone_id: 0 },
    expect: null,
  },
  {
    name: "labels replace; missing ones are created by reporters; remove_labels wins",
    current: { labels: [{ id: 1, title: "a" }, { id: 2, title: "b" }] as IssueRow["labels"] },
    params: { labels: ["a", "c", "new", "gone"], remove_labels: ["gone"] },
    loaded: { labels: [{ id: 1, title: "a", projectId: 1 }, { id: 3, title: "c", projectId: 1 }] },
    expect: { changes: {}, labels: { create: ["new"], add: [3], remove: [2] }, notes: [], resolveActorTodos: true },
  },
  {
    name: "add_labels keeps the current ones",
    current: { labels: [{ id: 1, title: "a" }] as IssueRow["labels"] },
    params: { add_labels: ["b,a"] },
    loaded: { labels: [{ id: 1, title: "a", projectId: 1 }, { id: 2, title: "b", projectId: null }] },
    expect: { labels: { create: [], add: [2], remove: [] } },
  },
  {
    name: "assignees: the note names added then removed, by user id; new ones get assigned to-dos",
    current: { assignees: [alice] as IssueRow["assignees"] },
    params: { assignee_ids: [23, 22] },
    loaded: { users: [user(22, "bob", Access.DEVELOPER), user(23, "carol", Access.REPORTER)] },
    expect: {
      assignees: { add: [23, 22], remove: [21] },
      notes: ["assigned to @bob and @carol and unassigned @alice"],
      todos: [
        { userId: 23, action: TodoAction.assigned },
        { userId: 22, action: TodoAction.assigned },
      ],
      resolveActorTodos: true,
    },
  },
  {
    name: "assignee_id 0 unassigns everyone",
    current: { assignees: [alice, bob] as IssueRow["assignees"] },
    params: { assignee_id: 0 },
    expect: { assignees: { add: [], remove: [21, 22] }, notes: ["unassigned @alice and @bob"], todos: [] },
  },
  {
    name: "assignees none of whom may read the issue: the parameter is dropped",
    current: { confidential: true },
    params: { assignee_ids: [22] },
    loaded: { users: [user(22, "bob", Access.GUEST)] },
    expect: null,
  },
  {
    name: "close: state, closer and closed_at at the update's clock reading, a state event, counter -1",
    params: { state_event: "close" },
    expect: {
      changes: { state: "closed", closedAt: NOW, closedById: ACTOR_ID, updatedAt: NOW },
      stateEvent: "closed",
      openIssuesDelta: -1,
      resolveActorTodos: true,
    },
  },
  { name: "close when closed: no plan", current: { state: "closed" }, params: { state_event: "close" }, expect: null },
  {
    name: "reopen: clears the closer, counter +1, to-dos kept",
    current: { state: "closed" },
    params: { state_event: "reopen" },
    expect: { changes: { state: "opened", closedAt: null, closedById: null }, stateEvent: "reopened", openIssuesDelta: 1, resolveActorTodos: false },
  },
  {
    name: "weight and issue type need reporter access",
    params: { weight: 3, issue_type: "incident" },
    expect: { changes: { weight: 3, issueType: "incident" }, notes: [] },
  },
  {
    name: "guest: weight and incident type are dropped",
    access: Access.GUEST,
    params: { weight: 3, issue_type: "incident" },
    expect: null,
  },
  {
    name: "updated_at is taken from owners",
    access: Access.OWNER,
    params: { title: "T", updated_at: new Date("2020-01-01T00:00:00Z") },
    expect: { changes: { title: "T", updatedAt: new Date("2020-01-01T00:00:00Z") } },
  },
  {
    name: "updated_at from a maintainer is ignored",
    access: Access.MAINTAINER,
    params: { title: "T", updated_at: new Date("2020-01-01T00:00:00Z") },
    expect: { changes: { title: "T", updatedAt: NOW } },
  },
];

describe("planIssueUpdate", () => {
  for (const row of rows) {
    it(row.name, () => {
      const sent = new Set(row.sent ?? Object.keys(row.params));
      const request = { params: row.params as UpdateParams, sent: (k: string) => sent.has(k) };
      const p = project(row.access ?? Access.REPORTER);
      const plan = planIssueUpdate(issue(row.current), request, actor(row.admin), {
        project: p,
        loaded: { ...EMPTY_CONTEXT, ...row.loaded },
        now: NOW,
      });
      if (row.expect === null) return expect(plan).toBeNull();
      expect(plan).not.toBeNull();
      const { changes, effects } = plan!;
      const e = row.expect;
      if (e.changes) expect(changes).toMatchObject(e.changes);
      expect(changes.updatedAt).toBeInstanceOf(Date);
      if (e.notes) expect(effects.notes).toEqual(e.notes);
      if (e.todos) expect(effects.todos).toEqual(e.todos);
      expect(effects.milestoneEvent).toEqual(e.milestoneEvent ?? null);
      expect(effects.stateEvent).toEqual(e.stateEvent ?? null);
      if (e.labels) {
        expect(effects.createLabels).toEqual(e.labels.create ?? []);
        expect(effects.addLabelIds).toEqual(e.labels.add ?? []);
        expect(effects.removeLabelIds).toEqual(e.labels.remove ?? []);
      }
      if (e.assignees) {
        expect(effects.addAssigneeIds).toEqual(e.assignees.add ?? []);
        expect(effects.removeAssigneeIds).toEqual(e.assignees.remove ?? []);
      }
      if (e.resolveActorTodos !== undefined) expect(effects.resolveActorTodos).toBe(e.resolveActorTodos);
      expect(effects.openIssuesDelta).toBe(e.openIssuesDelta ?? 0);
    });
  }
});

describe("issueUpdateNeeds", () => {
  const needs = (params: Partial<UpdateParams>, access: number = Access.REPORTER, current: Partial<IssueRow> = {}) => {
    const sent = new Set(Object.keys(params));
    return issueUpdateNeeds(issue(current), { params: params as UpdateParams, sent: (k) => sent.has(k) }, actor(), project(access));
  };

  it("plain columns need nothing loaded", () => {
    expect(needs({ confidential: true, due_date: "2026-01-01", state_event: "close" })).toEqual({ errors: {}, ask: null });
  });

  it("an unchanged title needs nothing loaded", () => {
    expect(needs({ title: "Old title" }).ask).toBeNull();
  });

  it("asks for assignees, mentions of the new text, the milestone and every label title at once", () => {
    expect(needs({ assignee_ids: [21], description: "hi @Bob", milestone_id: 7, labels: ["a"], add_labels: ["b"], remove_labels: ["c"] }).ask).toEqual({
      userIds: [21],
      usernames: ["bob"],
      milestoneId: 7,
      iterationId: null,
      labelTitles: ["a", "b", "c"],
    });
  });

  it("a guest's metadata is not asked for", () => {
    expect(needs({ assignee_ids: [21], milestone_id: 7, labels: ["a"] }, Access.GUEST).ask).toBeNull();
  });

  it("validation errors in the model's order", () => {
    expect(needs({ title: "  ", weight: -1 }).errors).toEqual({ title: ["can't be blank"], weight: ["must be greater than or equal to 0"] });
    expect(needs({ title: "x".repeat(256) }).errors).toEqual({ title: ["is too long (maximum is 255 characters)"] });
  });

  it("a guest's weight is not validated (it is dropped)", () => {
    expect(needs({ weight: -1 }, Access.GUEST).errors).toEqual({});
  });
});
