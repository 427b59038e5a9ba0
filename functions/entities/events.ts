import * as z from "zod";
import { isoTime, type PresentContext } from "../kernel/present";
import { Note, note as noteEntity, type Noteable, type NoteRow } from "./notes";
import { UserBasic, userBasic } from "./users";

/** A push event's `push_event_payload` row. */
export type PushData = {
  commitCount: number;
  action: number;
  refType: number;
  commitFrom: string | null;
  commitTo: string | null;
  ref: string | null;
  commitTitle: string | null;
  refCount: number | null;
};

/** An event with its author, push data and note, as the events query loads it. */
export type EventRow = {
  id: number;
  projectId: number | null;
  action: number;
  targetType: string | null;
  targetId: number | null;
  targetIid: number | null;
  targetTitle: string | null;
  createdAt: Date | string;
  author: { id: number; username: string; name: string; state: string; avatarUrl: string | null; email: string };
  pushData: PushData | null;
  /** Note events: the note and the iid of its issue or merge request. */
  note: NoteRow | null;
  noteableIid: number | null;
};

const PUSH_ACTIONS = ["created", "removed", "pushed"] as const;
const REF_TYPES = ["branch", "tag"] as const;

/**
 * Event#action_name (app/models/event.rb): pushes say "pushed new", "deleted" or "pushed to"; merged
 * is "accepted"; `created`, `reopened` and `updated` of an issuable all read "opened", as in GitLab.
 */
export function actionName(row: Pick<EventRow, "action" | "targetType" | "pushData">): string {
  switch (row.action) {
    case 5:
      if (row.pushData?.action === 0) return "pushed new";
      if (row.pushData?.action === 1) return "deleted";
      return "pushed to";
    case 3:
      return "closed";
    case 7:
      return "accepted";
    case 8:
      return "joined";
    case 9:
      return "left";
    case 11:
      return "removed due to membership expiration";
    case 10:
      return "destroyed";
    case 6:
      return "commented on";
    case 12:
      return "approved";
    case 1:
      // created_project_action_name: "imported" only for projects imported from a URL, which Edgeforge has not.
      if (row.targetType === null) return "created";
      return "opened";
    default:
      return "opened";
  }
}

/** API::Entities::PushEventPayload. */
export const PushEventPayload = z
  .object({
    commit_count: z.int(),
    action: z.string(),
    ref_type: z.string(),
    commit_from: z.string().nullable(),
    commit_to: z.string().nullable(),
    ref: z.string().nullable(),
    commit_title: z.string().nullable(),
    ref_count: z.int().nullable(),
  })
  .meta({ id: "PushEventPayload" });
export function pushEventPayload(p: PushData): z.output<typeof PushEventPayload> {
  return {
    commit_count: p.commitCount,
    action: PUSH_ACTIONS[p.action] ?? "pushed",
    ref_type: REF_TYPES[p.refType] ?? "branch",
    commit_from: p.commitFrom,
    commit_to: p.commitTo,
    ref: p.ref,
    commit_title: p.commitTitle,
    ref_count: p.refCount,
  };
}

/**
 * API::Entities::Event (lib/api/entities/event.rb, 15.4). `target_iid` is Event#target_iid: the
 * target's iid, else its id (notes). `note` only for note events, `push_data` only for pushes.
 * Differs from GitLab: 15.4 has no `imported`/`imported_from` (16.x); they are not shown.
 */
export const Event = z
  .object({
    id: z.int(),
    project_id: z.int().nullable(),
    action_name: z.string(),
    target_id: z.int().nullable(),
    target_iid: z.int().nullable(),
    target_type: z.string().nullable(),
    author_id: z.int(),
    target_title: z.string().nullable(),
    created_at: z.string().nullable(),
    note: Note.optional(),
    author: UserBasic,
    push_data: PushEventPayload.optional(),
    author_username: z.string(),
  })
  .meta({ id: "Event" });
export function event(row: EventRow, ctx: PresentContext): z.output<typeof Event> {
  const noteable = row.note
    ? ({
        type: row.note.noteableType as Noteable["type"],
        id: row.note.noteableId ?? 0,
        iid: row.noteableIid,
        authorId: null,
        assigneeIds: [],
        confidential: false,
        discussionLocked: false,
        project: null,
        group: null,
        readable: true,
      } satisfies Noteable)
    : null;
  return {
    id: row.id,
    project_id: row.projectId,
    action_name: actionName(row),
    target_id: row.targetId,
    target_iid: row.targetIid ?? row.targetId,
    target_type: row.targetType,
    author_id: row.author.id,
    target_title: row.targetTitle,
    created_at: isoTime(row.createdAt),
    ...(row.note && noteable ? { note: noteEntity(row.note, { ...ctx, noteable }) } : {}),
    author: userBasic(row.author, ctx),
    ...(row.pushData ? { push_data: pushEventPayload(row.pushData) } : {}),
    author_username: row.author.username,
  };
}
