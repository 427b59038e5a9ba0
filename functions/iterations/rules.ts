/**
 * Iteration validations (ee/app/models/ee/iteration.rb and the Timebox concern), reported as
 * `render_validation_error!` does: `{ message: { attribute: [messages] } }`.
 */

export type IterationValues = { title: string | null; description: string | null; startDate: string | null; dueDate: string | null };
export type Conflicts = { overlaps: boolean; titleTaken: boolean };

/** Today plus 500 years (`Iteration#future_date`). */
function limit(today: Date): string {
  const d = new Date(today);
  d.setUTCFullYear(d.getUTCFullYear() + 500);
  return d.toISOString().slice(0, 10);
}

/** The validation errors in GitLab's order: presence, date order, overlap, 500-year limit, title uniqueness. */
export function iterationErrors(v: IterationValues, c: Conflicts, today: Date): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);
  if (!v.startDate) add("start_date", "can't be blank");
  if (!v.dueDate) add("due_date", "can't be blank");
  if (v.startDate && v.dueDate && v.dueDate < v.startDate) add("due_date", "must be greater than start date");
  if (c.overlaps) add("base", "Dates cannot overlap with other existing Iterations within this group");
  const max = limit(today);
  if (v.startDate && v.startDate > max) add("start_date", "cannot be more than 500 years in the future");
  if (v.dueDate && v.dueDate > max) add("due_date", "cannot be more than 500 years in the future");
  if (c.titleTaken) add("title", "has already been taken");
  return errors;
}
