import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../kernel/db";

/**
 * System notes (app/services/system_note_service.rb) and discussion ids: the one place that INSERTs
 * system notes and the one generator of discussion ids. Callers (issues, merge requests, issue links,
 * time tracking) put the CTE this returns into their own write statement, so a write and its notes
 * stay one statement. User notes are written by `functions/shared/issuables/note_writes.ts`.
 */

/** Discussion::discussion_id: 40 hex characters (GitLab hashes a random value with SHA1). */
export function newDiscussionId(): string {
  return [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export type SystemNote = {
  noteableType: "Issue" | "MergeRequest" | "Epic" | "Snippet" | "AlertManagement::Alert";
  /** The noteable's id: a number, or an expression over the `from` sources (e.g. sql`mr.id`). */
  noteableId: number | SQL;
  projectId: number | SQL | null;
  /** The text: a string, or an expression over the `from` sources. */
  body: string | SQL;
};

export type SystemNotesOptions = {
  authorId: number;
  /** Sources the expressions name (single-row CTEs such as `mr`); the notes are written once per row. */
  from?: SQL;
  /** The notes are written only when this holds (over the `from` sources). */
  where?: SQL;
  /** `created_at` and `updated_at`; the statement's `now()` when absent. */
  at?: SQL;
};

/**
 * The CTE `name` that writes `notes` as system notes, in order, each in its own discussion. With no
 * notes it is `name AS (SELECT 1)`, so a statement may always name it.
 */
export function systemNotesCte(name: string, notes: SystemNote[], opts: SystemNotesOptions): SQL {
  if (notes.length === 0) return sql`${sql.identifier(name)} AS (SELECT 1)`;
  const rows = sql.join(
    notes.map(
      (n, i) =>
        sql`(${i}::int, ${n.noteableType}::text, (${n.noteableId})::int, (${n.projectId})::int, (${n.body})::text, ${newDiscussionId()}::text)`,
    ),
    sql`, `,
  );
  const at = opts.at ?? sql`now()`;
  const from = opts.from ? sql`${opts.from}, LATERAL ` : sql``;
  const where = opts.where ? sql` WHERE ${opts.where}` : sql``;
  return sql`${sql.identifier(name)} AS (INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, note, system, discussion_id, created_at, updated_at)
    SELECT v.noteable_type, v.noteable_id, v.project_id, ${opts.authorId}::int, v.note, true, v.discussion_id, ${at}, ${at}
    FROM ${from}(VALUES ${rows}) AS v(pos, noteable_type, noteable_id, project_id, note, discussion_id)${where} ORDER BY v.pos)`;
}

/** System notes as a statement of their own (alerts, whose writes are several statements in a transaction). */
export async function createSystemNotes(
  tx: Executor,
  input: { noteableType: SystemNote["noteableType"]; noteableId: number; projectId: number; authorId: number; bodies: string[]; now?: Date },
): Promise<void> {
  if (input.bodies.length === 0) return;
  const notes = input.bodies.map((body) => ({ noteableType: input.noteableType, noteableId: input.noteableId, projectId: input.projectId, body }));
  const at = input.now ? sql`${input.now.toISOString()}::timestamptz` : undefined;
  await tx.execute(sql`WITH ${systemNotesCte("written", notes, { authorId: input.authorId, at })} SELECT 1`);
}

/**
 * SystemNotes::IssuablesService#change_title with Gitlab::Diff::InlineDiff's prefix/suffix ranges,
 * marked `{-…-}` and `{+…+}`. Differs from GitLab: its character diff may mark several ranges of a
 * heavily edited title; here the single changed middle is marked.
 */
export function titleNote(oldTitle: string, newTitle: string): string {
  const a = [...oldTitle];
  const b = [...newTitle];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const mark = (chars: string[], open: string, close: string) => {
    const middle = chars.slice(prefix, chars.length - suffix).join("");
    // InlineDiff skips the diff when the old title was empty.
    if (middle === "" || oldTitle === "") return chars.join("");
    return `${chars.slice(0, prefix).join("")}${open}${middle}${close}${chars.slice(chars.length - suffix).join("")}`;
  };
  return `changed title from **${mark(a, "{-", "-}")}** to **${mark(b, "{+", "+}")}**`;
}

export const DESCRIPTION_NOTE = "changed the description";
