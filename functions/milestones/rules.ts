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
