import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** Event.actions (app/models/event.rb). */
export const EVENT_ACTIONS = {
  created: 1,
  updated: 2,
  closed: 3,
  reopened: 4,
  pushed: 5,
  commented: 6,
  merged: 7,
  joined: 8,
  left: 9,
  destroyed: 10,
  expired: 11,
  approved: 12,
} as const;

/** Event::TARGET_TYPES: the `target_type` parameter and the class name it filters on. */
export const EVENT_TARGET_TYPES = {
  issue: "Issue",
  milestone: "Milestone",
  merge_request: "MergeRequest",
  note: "Note",
  project: "Project",
  snippet: "Snippet",
  user: "User",
  wiki: "WikiPage::Meta",
  design: "DesignManagement::Design",
} as const;

const ACTIONS = Object.keys(EVENT_ACTIONS) as (keyof typeof EVENT_ACTIONS)[];
const TARGET_TYPES = Object.keys(EVENT_TARGET_TYPES) as (keyof typeof EVENT_TARGET_TYPES)[];

/**
 * `use :pagination`, `use :event_filter_params`, `use :sort_params` of lib/api/events.rb, in its order:
 * `GET /users/:id/events`, `GET /projects/:id/events`. The list query reads them as declared.
 * `before` and `after` are days (`YYYY-MM-DD`, UTC): created before that day began, after it ended.
 */
export const ListEvents = pageParams.extend({
  action: p.oneOf(...ACTIONS).optional(),
  target_type: p.oneOf(...TARGET_TYPES).optional(),
  before: p.date().optional(),
  after: p.date().optional(),
  sort: p.oneOf("asc", "desc").default("desc"),
});

/** `GET /events`: `scope=all` widens the caller's own events to every project they are authorized on. */
export const ListOwnEvents = ListEvents.extend({ scope: p.string().optional() });

export type ListParams = z.output<typeof ListEvents>;
