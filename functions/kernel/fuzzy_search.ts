import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * A column to match, or `{ lowered }`: a stored `lower(column)` (e.g. `issues.title_lower`), matched as
 * `lowered LIKE lower(pattern)`, which is what `column ILIKE pattern` computes in a UTF-8 database
 * (PostgreSQL lower-cases both sides, then matches as LIKE) without lower-casing every row again.
 */
export type FuzzyColumn = SQLWrapper | { lowered: SQLWrapper };

const matches = (column: FuzzyColumn, pattern: string): SQL =>
  "lowered" in column ? sql`${column.lowered} LIKE lower(${pattern}::text)` : sql`${column} ILIKE ${pattern}`;

/**
 * Gitlab::SQL::Pattern#fuzzy_search (lib/gitlab/sql/pattern.rb), as issues, labels and milestones
 * search their title and description: the squished query splits into terms (a `"quoted term"` stays
 * whole); every term of 3+ characters must match (`ILIKE %term%`, AND); without such terms the whole
 * query must match the column exactly, case-insensitively. Columns are OR-ed. Null: no condition.
 */
export function fuzzySearch(columns: FuzzyColumn[], query: string | undefined): SQL | null {
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
      ? sql.join(partial.map((term) => matches(column, `%${escapeLike(term)}%`)), sql` AND `)
      : matches(column, escapeLike(squished)),
  );
  return sql`(${sql.join(perColumn.map((c) => sql`(${c})`), sql` OR `)})`;
}

/** `sanitize_sql_like`: `%`, `_` and `\` are literals in the pattern. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * Gitlab::Search::SortOptions.sort_and_direction: `order_by` with `sort` (the API's spelling), or a bare
 * `sort` such as `created_desc` (the web's); anything else is GitLab's default, `created_at` descending.
 * `popularity` (upvotes) applies to issues and merge requests only (SCOPE_ONLY_SORT); elsewhere the
 * default applies.
 */
export type SearchOrder = { column: "created_at" | "updated_at" | "popularity"; dir: "asc" | "desc" };

/** Each column with the short name a bare `sort` uses (`created_desc`). */
const SEARCH_ORDER_COLUMNS = { created_at: "created", updated_at: "updated", popularity: "popularity" } as const;

export function searchOrder(orderBy: string | undefined, sort: string | undefined): SearchOrder {
  for (const [column, short] of Object.entries(SEARCH_ORDER_COLUMNS) as [SearchOrder["column"], string][]) {
    for (const dir of ["asc", "desc"] as const) {
      if (orderBy === undefined ? sort === `${short}_${dir}` : orderBy === column && sort === dir) return { column, dir };
    }
  }
  return { column: "created_at", dir: "desc" };
}

/** A search page without a count (Kaminari's `without_count`): one row past the page says whether a next one exists. */
export type SearchPage<T> = { rows: T[]; hasNext: boolean };
