import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access, Visibility } from "../kernel/access";
import type { Actor } from "../kernel/env";
import { toSentence } from "../kernel/present";
import { directlyAddressedUsernames, mentionedUsernames } from "../entities/mentions";
import { TodoAction } from "../shared/issuables/todos";
import type { CreateParams } from "./params";
import type { ContextUser, IssueEffects, WriteContext } from "./queries/write";

/**
 * Pure rules of the issue writes: model validations, casts, and the texts of GitLab's system notes
 * (app/services/system_notes/issuables_service.rb, time_tracking_service.rb).
 */

/** Issuable::DESCRIPTION_LENGTH_MAX (1 megabyte of characters). */
const DESCRIPTION_MAX = 1_048_576;

/** Issue validations in their order: title (present, at most 255), description length, EE weight. */
export function issueErrors(v: { title?: string; description?: string | null; weight?: number | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (v.title !== undefined) {
    if (v.title === "") errors.title = ["can't be blank"];
    else if ([...v.title].length > 255) errors.title = ["is too long (maximum is 255 characters)"];
  }
  if (v.description && [...v.description].length > DESCRIPTION_MAX)
    errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
  if (v.weight !== undefined && v.weight !== null && v.weight < 0) errors.weight = ["must be greater than or equal to 0"];
  return errors;
}

/**
 * A `type: String` date assigned to a date column, as Rails casts it: `YYYY-MM-DD` when it is a real
 * date, else nil. Differs from GitLab: Ruby's `Date._parse` also reads other spellings; those are nil here.
 */
export function castDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})/.exec(value);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${match[1]}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/**
 * IssuePolicy's `read_issue` for another user (assignees must be able to read what they are assigned,
 * mentions only notify readers): project readable (`read_issue`), and for a confidential issue
 * reporters and up, admins, the author and the assignees.
 */
export function userCanReadIssue(
  user: ContextUser,
  project: ProjectWithAccess,
  issue: { confidential: boolean; authorId: number | null; assigneeIds: number[] } | null,
): boolean {
  if (!project.issuesEnabled) return false;
  const readsProject =
    user.admin ||
    user.access >= Access.GUEST ||
    project.visibilityLevel >= Visibility.PUBLIC ||
    (project.visibilityLevel >= Visibility.INTERNAL && !user.external);
  if (!readsProject) return false;
  if (!issue || !issue.confidential) return true;
  return user.admin || user.access >= Access.REPORTER || issue.authorId === user.id || issue.assigneeIds.includes(user.id);
}

/** SystemNotes::IssuablesService#change_issuable_assignees. */
export function assigneesNote(added: string[], removed: string[]): string | null {
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${toSentence(added.map((u) => `@${u}`))}`);
  if (removed.length) parts.push(`unassigned ${toSentence(removed.map((u) => `@${u}`))}`);
  return parts.length ? parts.join(" and ") : null;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** `Date#to_s(:long)`: "%B %e, %Y" (the day space-padded: "September  5, 2022"). */
function longDate(date: string): string {
  const [y, m, d] = date.split("-").map(Number);
  return `${MONTHS[m - 1]} ${String(d).padStart(2, " ")}, ${y}`;
}

/** SystemNotes::TimeTrackingService#change_start_date_or_due_date for the due date. */
export function dueDateNote(dueDate: string | null): string {
  return dueDate ? `changed due date to ${longDate(dueDate)}` : "removed due date";
}

// The title and description note bodies are shared with epics.
export { DESCRIPTION_NOTE, titleNote } from "../shared/issuables/system_notes";

/** SystemNotes::IssuablesService#discussion_lock. */
export const lockNote = (locked: boolean) => `${locked ? "locked" : "unlocked"} this issue`;

/** SystemNotes::IssuablesService#change_issue_confidentiality. */
export const confidentialityNote = (confidential: boolean) =>
  confidential ? "made the issue confidential" : "made the issue visible to everyone";

/** The request's address for UserAgentDetail: `CF-Connecting-IP`, else the first `X-Forwarded-For`. */
export function clientIp(cfConnectingIp: string | undefined, forwardedFor: string | undefined): string {
  if (cfConnectingIp?.trim()) return cfConnectingIp.trim();
  const first = forwardedFor?.split(",")[0]?.trim();
  return first || "127.0.0.1";
}

/** Labels as CommaSeparatedToArray gives them, then `strip`ped; blanks and repeats dropped. */
export function labelTitles(list: string[] | undefined): string[] {
  const out: string[] = [];
  for (const raw of list ?? []) {
    for (const part of raw.split(",")) {
      const title = part.trim();
      if (title && !out.includes(title)) out.push(title);
    }
  }
  return out;
}

// The decisions shared by the create service and the update planner (update_plan.ts).

export type Permissions = { metadata: boolean; admin: boolean; timestamps: boolean; createLabels: boolean };

/**
 * IssuePolicy: `set_issue_metadata` (milestone, labels, assignees, due date, lock, confidentiality)
 * for reporters and up, and for any project member creating an issue (gitlab-org/gitlab#300100);
 * `admin_issue` (EE weight, issue types); `set_issue_created_at`/`_updated_at`/`_iid` (owners and
 * admins); `admin_label` (create missing labels).
 */
export function permissions(actor: Actor, project: ProjectWithAccess, creating: boolean): Permissions {
  const admin = allowed(actor, "admin_issue", project);
  return {
    metadata: admin || (creating && project.accessLevel >= Access.GUEST),
    admin,
    timestamps: actor.isAdmin || project.accessLevel >= Access.OWNER,
    createLabels: allowed(actor, "admin_label", project),
  };
}

/** `create_issue_type_allowed?`: incidents, test cases and requirements need reporter access. */
export function issueTypeAllowed(type: string | undefined, perms: Permissions): type is string {
  return type !== undefined && (type === "issue" || perms.admin);
}

/** `convert_parameters_from_legacy_format`: a present `assignee_id` replaces `assignee_ids`. */
export function requestedAssignees(params: Pick<CreateParams, "assignee_ids" | "assignee_id">): number[] | null | undefined {
  if (params.assignee_id !== undefined && params.assignee_id !== null) return [params.assignee_id];
  return params.assignee_ids;
}

/**
 * `filter_assignees_using_checks`: `[0]` unassigns everyone; otherwise the ids of users who may read
 * the issue; when none may, the parameter is dropped (undefined: no change).
 */
export function filterAssignees(
  ids: number[] | null | undefined,
  ctx: WriteContext,
  project: ProjectWithAccess,
  issue: { confidential: boolean; authorId: number | null; assigneeIds: number[] } | null,
): number[] | undefined {
  if (ids === undefined) return undefined;
  if (ids === null || ids.length === 0) return [];
  if (ids.length === 1 && ids[0] === 0) return [];
  const readers = ids.filter((id, i) => {
    const user = ctx.users.find((u) => u.id === id);
    return ids.indexOf(id) === i && !!user && userCanReadIssue(user, project, issue);
  });
  return readers.length ? readers : undefined;
}

/** `find_or_create_label_ids`: available labels by title (the project's first), else new project labels. */
export function resolveLabels(titles: string[], ctx: WriteContext, canCreate: boolean): { ids: number[]; create: string[] } {
  const ids: number[] = [];
  const create: string[] = [];
  for (const title of titles) {
    const label = ctx.labels.find((l) => l.title === title);
    if (label) {
      if (!ids.includes(label.id)) ids.push(label.id);
    } else if (canCreate && [...title].length <= 255 && !create.includes(title)) create.push(title);
  }
  return { ids, create };
}

/**
 * TodoService#new_issuable / #reassigned_assignable / #update_issue: `assigned` to-dos for new
 * assignees, then `directly_addressed` and `mentioned` ones for users named in the title or
 * description who may read the issue; each user gets one (create_todos skips pending ones).
 */
export function todosFor(
  opts: { assigned: number[]; text: MentionText | null; skipUsernames: string[] },
  ctx: WriteContext,
  canRead: (u: ContextUser) => boolean,
): IssueEffects["todos"] {
  const todos: IssueEffects["todos"] = opts.assigned.map((userId) => ({ userId, action: TodoAction.assigned }));
  if (opts.text === null) return todos;
  const taken = new Set(opts.assigned);
  const skip = new Set(opts.skipUsernames);
  // Each mentionable attribute (title, description) is scanned on its own for a leading address.
  const direct = new Set([...directlyAddressedUsernames(opts.text.title), ...directlyAddressedUsernames(opts.text.description)]);
  for (const name of mentions(opts.text)) {
    if (skip.has(name)) continue;
    const user = ctx.users.find((u) => u.username.toLowerCase() === name);
    if (!user || taken.has(user.id) || !canRead(user)) continue;
    taken.add(user.id);
    todos.push({ userId: user.id, action: direct.has(name) ? TodoAction.directly_addressed : TodoAction.mentioned });
  }
  // Directly addressed users get theirs before the mentioned ones, as GitLab creates them.
  return [...todos.filter((t) => t.action !== TodoAction.mentioned), ...todos.filter((t) => t.action === TodoAction.mentioned)];
}

/** The mentionable attributes of an issue (`attr_mentionable :title, :description`). */
export type MentionText = { title: string; description: string | null };
export const mentions = (t: MentionText) => [...new Set([...mentionedUsernames(t.title), ...mentionedUsernames(t.description)])];
