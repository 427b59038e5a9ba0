import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /:parent/:id/:noteables/:noteable_id/notes` (lib/api/notes.rb), with its defaults: the list
 * query reads them as declared. `activity_filter` is UserPreference::NOTES_FILTERS: every note, only
 * comments, only system notes.
 */
export const ListNotes = z.object({
  noteable_id: p.int(),
  order_by: p.oneOf("created_at", "updated_at").default("created_at"),
  sort: p.oneOf("asc", "desc").default("desc"),
  activity_filter: p.oneOf("all_notes", "only_comments", "only_activity").default("all_notes"),
  ...pageParams.shape,
});

export type ListParams = z.output<typeof ListNotes>;
