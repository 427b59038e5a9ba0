// Issue boards (app/models/board.rb, list.rb; ee/app/models/ee/board.rb): a project's or a group's boards,
// their lists, and the scope a board narrows its issues to (milestone, assignee, labels, weight).
import { check, index, integer, pgTable, primaryKey, smallint, text, boolean, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, updatedAt } from "./columns";
import { iterations, labels, milestones } from "./issues";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

export const boards = pgTable(
  "boards",
  {
    id: id(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    hideBacklogList: boolean().notNull().default(false),
    hideClosedList: boolean().notNull().default(false),
    // The board's scope (EE): GitLab keeps the assignee in `board_assignees`; one per board either way.
    milestoneId: integer().references(() => milestones.id, { onDelete: "set null" }),
    assigneeId: integer().references(() => users.id, { onDelete: "set null" }),
    weight: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_boards_on_project_id").on(t.projectId),
    index("index_boards_on_group_id").on(t.groupId),
    check("boards_one_parent", sql`num_nonnulls(project_id, group_id) = 1`),
  ],
);

/** `board_labels`: the labels a board is scoped to. */
export const boardLabels = pgTable(
  "board_labels",
  {
    boardId: integer().notNull().references(() => boards.id, { onDelete: "cascade" }),
    labelId: integer().notNull().references(() => labels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.boardId, t.labelId] }), index("index_board_labels_on_label_id").on(t.labelId)],
);

/**
 * `lists`: `list_type` is GitLab's enum (backlog 0, label 1, closed 2, assignee 3, milestone 4,
 * iteration 5). Backlog and closed have no position; the others are numbered from 0, in board order.
 */
export const boardLists = pgTable(
  "lists",
  {
    id: id(),
    boardId: integer().notNull().references(() => boards.id, { onDelete: "cascade" }),
    listType: smallint().notNull(),
    position: integer(),
    labelId: integer().references(() => labels.id, { onDelete: "cascade" }),
    userId: integer().references(() => users.id, { onDelete: "cascade" }),
    milestoneId: integer().references(() => milestones.id, { onDelete: "cascade" }),
    iterationId: integer().references(() => iterations.id, { onDelete: "cascade" }),
    maxIssueCount: integer().notNull().default(0),
    maxIssueWeight: integer().notNull().default(0),
    limitMetric: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_lists_on_board_id_and_position").on(t.boardId, t.position),
    uniqueIndex("index_lists_on_board_id_and_label_id").on(t.boardId, t.labelId).where(sql`label_id IS NOT NULL`),
    uniqueIndex("index_lists_on_board_id_and_user_id").on(t.boardId, t.userId).where(sql`user_id IS NOT NULL`),
    uniqueIndex("index_lists_on_board_id_and_milestone_id").on(t.boardId, t.milestoneId).where(sql`milestone_id IS NOT NULL`),
    uniqueIndex("index_lists_on_board_id_and_iteration_id").on(t.boardId, t.iterationId).where(sql`iteration_id IS NOT NULL`),
    index("index_lists_on_label_id").on(t.labelId),
  ],
);

export type Board = typeof boards.$inferSelect;
export type BoardList = typeof boardLists.$inferSelect;
