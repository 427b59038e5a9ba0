import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** lib/api/boards.rb, lib/api/group_boards.rb and EE's boards_responses.rb: each route's declared params. */
export const ListBoards = pageParams;
export const OneBoard = z.object({ board_id: p.int() });
export const CreateBoard = z.object({ name: p.string() });

/** `use :update_params` (ee/lib/ee/api/boards_responses.rb): the board's name, list toggles and scope. */
export const UpdateBoard = z.object({
  board_id: p.int(),
  name: p.string().optional(),
  hide_backlog_list: p.bool().optional(),
  hide_closed_list: p.bool().optional(),
  assignee_id: p.int().optional(),
  milestone_id: p.int().optional(),
  labels: p.string().optional(),
  weight: p.int().optional(),
});

export const ListLists = OneBoard.extend(pageParams.shape);
export const OneList = z.object({ board_id: p.int(), list_id: p.int() });

/** `exactly_one_of :label_id, :assignee_id, :milestone_id, :iteration_id` (EE's list creation params). */
export const CreateList = z.object({
  board_id: p.int(),
  label_id: p.int().optional(),
  assignee_id: p.int().optional(),
  milestone_id: p.int().optional(),
  iteration_id: p.int().optional(),
});
export const LIST_TARGETS = ["label_id", "assignee_id", "milestone_id", "iteration_id"];

export const MoveList = z.object({ board_id: p.int(), list_id: p.int(), position: p.int() });
