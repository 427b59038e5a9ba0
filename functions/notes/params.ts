import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /:parent/:id/:noteables/:noteable_id/notes` (lib/api/notes.rb), with its defaults: the list
 * query reads them as declared. `activity_filter` is UserPreference::NOTES_FILTERS: every note, only
 * comments, only system notes.
 */
export const ListNotes = z.object({
  noteable_id: p.int().describe("The ID of the noteable"),
  order_by: p.oneOf("created_at", "updated_at").default("created_at").describe("Return notes ordered by `created_at` or `updated_at` fields."),
  sort: p.oneOf("asc", "desc").default("desc").describe("Return notes sorted in `asc` or `desc` order."),
  activity_filter: p.oneOf("all_notes", "only_comments", "only_activity").default("all_notes").describe("The type of notables which are returned."),
  ...pageParams.shape,
});

export type ListParams = z.output<typeof ListNotes>;
