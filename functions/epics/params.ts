import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** Label titles of a `labels`/`add_labels`/`remove_labels` parameter: trimmed, comma-split, unique. */
export function labelTitles(list: string[] | undefined): string[] {
  const out: string[] = [];
  for (const raw of list ?? []) for (const part of raw.split(",")) {
    const title = part.trim();
    if (title !== "" && !out.includes(title)) out.push(title);
  }
  return out;
}

/**
 * `GET /groups/:id/epics` (ee/lib/api/epics.rb), with its defaults: EpicsFinder's params, which the list
 * query reads as declared. `labels`: titles the epic must all carry; `None` no label, `Any` some label.
 */
export const ListEpics = z.object({
  order_by: p.oneOf("created_at", "updated_at").default("created_at"),
  sort: p.oneOf("asc", "desc").default("desc"),
  search: p.string().optional(),
  state: p.oneOf("opened", "closed", "all").default("all"),
  author_id: p.int().optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  include_ancestor_groups: p.bool().default(false),
  include_descendant_groups: p.bool().default(true),
  confidential: p.bool().optional(),
  labels: p.strings({ comma: true }).transform(labelTitles).optional(),
  with_labels_details: p.bool().optional(),
  ...pageParams.shape,
});

export type ListParams = z.output<typeof ListEpics>;
