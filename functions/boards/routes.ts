import { authorize, authorizeGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, recordNotFound, validation } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { board, BoardEntity, boardList, List, type BoardParent } from "../entities/boards";
import { CreateBoard, CreateList, LIST_TARGETS, ListBoards, ListLists, MoveList, OneBoard, OneList, UpdateBoard } from "./params";
import * as q from "./queries";
import * as services from "./services";

/**
 * Issue boards of projects (lib/api/boards.rb) and groups (lib/api/group_boards.rb), written once and
 * mounted under both parents, with EE's board scope and list kinds (ee/lib/ee/api/boards_responses.rb).
 * Every endpoint needs a signed-in caller (`before { authenticate! }`). Boards and lists are found with
 * `find` (404 "Not found"). Iteration lists take an iteration of the parent's groups.
 */
export const boardsRoutes = router();

type BoardAbility = "read_issue_board" | "admin_issue_board" | "admin_issue_board_list";
type Loaded = { parent: q.BoardParent; ctx: BoardParent };

type Parent = { path: "/projects/:id" | "/groups/:id"; load(c: Ctx, ability: BoardAbility): Promise<Loaded> };

const PARENTS: Parent[] = [
  {
    path: "/projects/:id",
    async load(c, ability) {
      const project = await findProject(c, c.req.param("id")!);
      authorize(c, ability, project);
      const groupIds = project.namespace.type === "Group" ? project.namespace.traversalIds : [];
      return { parent: { kind: "project", id: project.id, groupIds }, ctx: { project } };
    },
  },
  {
    path: "/groups/:id",
    async load(c, ability) {
      const group = await findGroup(c, c.req.param("id")!);
      authorizeGroup(c, ability, group);
      return { parent: { kind: "group", id: group.id, groupIds: group.traversalIds }, ctx: { group } };
    },
  },
];

async function loadBoard(c: Ctx, parent: q.BoardParent, boardId: number) {
  const found = await q.findBoard(c.var.db(), parent, boardId);
  if (!found) throw recordNotFound();
  return found;
}

async function loadList(c: Ctx, boardId: number, listId: number) {
  const found = await q.findList(c.var.db(), boardId, listId);
  if (!found) throw recordNotFound();
  return found;
}

for (const { path, load } of PARENTS) {
  /** GET /:parent/:id/boards */
  boardsRoutes.get(`${path}/boards`, { params: ListBoards, response: [BoardEntity] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListBoards);
    const { parent, ctx } = await load(c, "read_issue_board");
    const page = pageOf(params);
    const list = await q.listBoards(c.var.db(), parent, page);
    paginate(c, page, list.total);
    return present(c, list.rows, board, ctx);
  });

  /** GET /:parent/:id/boards/:board_id */
  boardsRoutes.get(`${path}/boards/:board_id`, { params: OneBoard, response: BoardEntity }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneBoard);
    const { parent, ctx } = await load(c, "read_issue_board");
    return present(c, await loadBoard(c, parent, params.board_id), board, ctx);
  });

  /** POST /:parent/:id/boards: Boards::CreateService, with the backlog and closed lists. */
  boardsRoutes.post(`${path}/boards`, { params: CreateBoard, response: BoardEntity }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, CreateBoard);
    const { parent, ctx } = await load(c, "admin_issue_board");
    // Differs from GitLab: a blank name is refused with Board's validation error instead of presenting
    // the unsaved board.
    if (params.name.trim() === "") throw validation({ name: ["can't be blank"] });
    const id = await services.createBoard(c.var.db(), parent, params.name);
    return present(c, await loadBoard(c, parent, id), board, ctx, 201);
  });

  /** PUT /:parent/:id/boards/:board_id: Boards::UpdateService with EE's scope filters. */
  boardsRoutes.put(`${path}/boards/:board_id`, { params: UpdateBoard, response: BoardEntity }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, UpdateBoard);
    const { parent, ctx } = await load(c, "admin_issue_board");
    const db = c.var.db();
    const current = await loadBoard(c, parent, params.board_id);
    if (params.name !== undefined && params.name.trim() === "") throw validation({ name: ["can't be blank"] });
    const changes: q.BoardChanges = {};
    if (params.name !== undefined) changes.name = params.name;
    if (params.hide_backlog_list !== undefined) changes.hideBacklogList = params.hide_backlog_list;
    if (params.hide_closed_list !== undefined) changes.hideClosedList = params.hide_closed_list;
    if (params.weight !== undefined) changes.weight = params.weight;
    // EE's UpdateService drops a milestone or assignee the parent does not have; 0 clears the scope.
    if (params.milestone_id === 0 || (params.milestone_id !== undefined && (await q.milestoneIsAvailable(db, parent, params.milestone_id))))
      changes.milestoneId = params.milestone_id || null;
    if (params.assignee_id === 0 || (params.assignee_id !== undefined && (await q.userIsAvailable(db, parent, params.assignee_id))))
      changes.assigneeId = params.assignee_id || null;
    const titles = params.labels?.split(",").map((t) => t.trim()).filter(Boolean);
    const labelIds = titles === undefined ? undefined : await q.availableLabelIdsByTitle(db, parent, titles);
    await db.transaction((tx) => q.updateBoard(tx, current.id, changes, labelIds));
    return present(c, await loadBoard(c, parent, current.id), board, ctx);
  });

  /** DELETE /:parent/:id/boards/:board_id: 204 (a parent's last board stays, as in GitLab). */
  boardsRoutes.delete(`${path}/boards/:board_id`, { params: OneBoard }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneBoard);
    const { parent } = await load(c, "admin_issue_board");
    const found = await loadBoard(c, parent, params.board_id);
    await services.destroyBoard(c.var.db(), parent, found.id);
    return c.body(null, 204);
  });

  /** GET /:parent/:id/boards/:board_id/lists: the label, assignee and milestone lists by position. */
  boardsRoutes.get(`${path}/boards/:board_id/lists`, { params: ListLists, response: [List] }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, ListLists);
    const { parent } = await load(c, "read_issue_board");
    const found = await loadBoard(c, parent, params.board_id);
    const page = pageOf(params);
    const list = await q.listLists(c.var.db(), found.id, page);
    paginate(c, page, list.total);
    return present(c, list.rows, boardList);
  });

  /** GET /:parent/:id/boards/:board_id/lists/:list_id */
  boardsRoutes.get(`${path}/boards/:board_id/lists/:list_id`, { params: OneList, response: List }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneList);
    const { parent } = await load(c, "read_issue_board");
    const found = await loadBoard(c, parent, params.board_id);
    return present(c, await loadList(c, found.id, params.list_id), boardList);
  });

  /** POST /:parent/:id/boards/:board_id/lists: a label, assignee or milestone list after the others. */
  boardsRoutes.post(`${path}/boards/:board_id/lists`, { params: CreateList, response: List }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, CreateList, [{ exactlyOneOf: LIST_TARGETS }]);
    const { parent } = await load(c, "admin_issue_board_list");
    const db = c.var.db();
    const found = await loadBoard(c, parent, params.board_id);
    // `authorize_list_type_resource!`: what a list would list by must be the parent's.
    if (params.label_id !== undefined && !(await q.labelIsAvailable(db, parent, params.label_id))) throw apiError({ error: "Label not found!" }, 400);
    if (params.milestone_id !== undefined && !(await q.milestoneIsAvailable(db, parent, params.milestone_id)))
      throw apiError({ error: "Milestone not found!" }, 400);
    if (params.assignee_id !== undefined && !(await q.userIsAvailable(db, parent, params.assignee_id))) throw apiError({ error: "User not found!" }, 400);
    if (params.iteration_id !== undefined && !(await q.iterationIsAvailable(db, parent, params.iteration_id)))
      throw apiError({ error: "Iteration not found!" }, 400);
    const target: services.ListTarget =
      params.label_id !== undefined
        ? { labelId: params.label_id }
        : params.assignee_id !== undefined
          ? { assigneeId: params.assignee_id }
          : params.milestone_id !== undefined
            ? { milestoneId: params.milestone_id }
            : { iterationId: params.iteration_id! };
    const id = await services.createList(db, found.id, target);
    // List's uniqueness validations (app/models/list.rb, EE's for users, milestones and iterations; a user's column is user_id).
    const column = { labelId: "label_id", assigneeId: "user_id", milestoneId: "milestone_id", iterationId: "iteration_id" }[Object.keys(target)[0]]!;
    if (id === null) throw validation({ [column]: ["has already been taken"] });
    return present(c, await loadList(c, found.id, id), boardList, undefined, 201);
  });

  /** PUT /:parent/:id/boards/:board_id/lists/:list_id: Boards::Lists::MoveService. */
  boardsRoutes.put(`${path}/boards/:board_id/lists/:list_id`, { params: MoveList, response: List }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, MoveList);
    const { parent } = await load(c, "read_issue_board");
    const found = await loadBoard(c, parent, params.board_id);
    const list = await loadList(c, found.id, params.list_id);
    await load(c, "admin_issue_board_list");
    if (!(await services.moveList(c.var.db(), found.id, list, params.position))) throw apiError({ error: "List could not be moved!" }, 400);
    return present(c, await loadList(c, found.id, list.id), boardList);
  });

  /** DELETE /:parent/:id/boards/:board_id/lists/:list_id: 204. */
  boardsRoutes.delete(`${path}/boards/:board_id/lists/:list_id`, { params: OneList }, async (c) => {
    requireUser(c);
    const params = await readParamsWithPath(c, OneList);
    const { parent } = await load(c, "admin_issue_board_list");
    const found = await loadBoard(c, parent, params.board_id);
    await services.destroyList(c.var.db(), found.id, await loadList(c, found.id, params.list_id));
    return c.body(null, 204);
  });
}
