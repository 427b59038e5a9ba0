/**
 * Timebox validations (app/models/concerns/timebox.rb, app/models/milestone.rb) and the way the API
 * reports them: `"Failed to create milestone #{milestone.errors.messages}"`, a Ruby hash inspected.
 */

/** `Timebox#title=`: HTML stripped (Sanitize.clean), blank values not assigned (null). */
export function milestoneTitle(value: string): string | null {
  const title = value
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
  return title.trim() === "" ? null : title;
}

/**
 * A date parameter as Rails casts it into a date column: `YYYY-MM-DD` (one-digit month and day
 * allowed) when it is a real date, else nil. Differs from GitLab: Ruby's `Date._parse` also reads
 * other spellings ("Jan 5 2024"); those are nil here.
 */
export function castDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$/.exec(value);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${match[1]}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

export type TimeboxValues = { title: string | null; startDate: string | null; dueDate: string | null; titleTaken: boolean };

/** The validation errors in GitLab's order (title, date ordering, 4-digit years, uniqueness). */
export function milestoneErrors(v: TimeboxValues): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);
  if (v.title === null) add("title", "can't be blank");
  if (v.startDate && v.dueDate && v.dueDate <= v.startDate) add("due_date", "must be greater than start date");
  if (v.startDate && v.startDate > "9999-12-31") add("start_date", "date must not be after 9999-12-31");
  if (v.dueDate && v.dueDate > "9999-12-31") add("due_date", "date must not be after 9999-12-31");
  if (v.title !== null && v.titleTaken) add("title", "already being used for another group or project milestone.");
  return errors;
}

/** Ruby's `Hash#inspect` of `errors.messages`: `{:title=>["can't be blank"]}`. */
export function inspectErrors(errors: Record<string, string[]>): string {
  const str = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const pairs = Object.entries(errors).map(([attr, messages]) => `:${attr}=>[${messages.map(str).join(", ")}]`);
  return `{${pairs.join(", ")}}`;
}
