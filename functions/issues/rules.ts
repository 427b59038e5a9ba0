import type { ProjectWithAccess } from "../kernel/abilities";
import { Access, Visibility } from "../kernel/access";
import { toSentence } from "../kernel/present";
import type { ContextUser } from "./queries/write";

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
