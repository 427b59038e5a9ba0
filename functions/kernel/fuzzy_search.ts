import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * Gitlab::SQL::Pattern#fuzzy_search (lib/gitlab/sql/pattern.rb), as issues, labels and milestones
 * search their title and description: the squished query splits into terms (a `"quoted term"` stays
 * whole); every term of 3+ characters must match (`ILIKE %term%`, AND); without such terms the whole
 * query must match the column exactly, case-insensitively. Columns are OR-ed. Null: no condition.
 */
export function fuzzySearch(columns: SQLWrapper[], query: string | undefined): SQL | null {
  if (query === undefined) return null;
  const squished = query.trim().replace(/\s+/g, " ");
  if (!squished) return null;
  const quoted: string[] = [];
  const rest = squished.replace(/(?<=^| )"([^"]+)"(?= |$)/g, (_, term: string) => {
    quoted.push(term);
    return "";
  });
  const partial = [...rest.split(" ").filter(Boolean), ...quoted].filter((term) => [...term].length >= 3);
  const perColumn = columns.map((column) =>
    partial.length
      ? sql.join(partial.map((term) => sql`${column} ILIKE ${`%${escapeLike(term)}%`}`), sql` AND `)
      : sql`${column} ILIKE ${escapeLike(squished)}`,
  );
  return sql`(${sql.join(perColumn.map((c) => sql`(${c})`), sql` OR `)})`;
}

/** `sanitize_sql_like`: `%`, `_` and `\` are literals in the pattern. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
