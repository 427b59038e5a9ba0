import { sql, type Placeholder, type SQLWrapper } from "drizzle-orm";
import * as z from "zod";
import type { Ctx } from "./env";
import { preparedQuery, type Executor } from "./db";
import { methodNotAllowed } from "./errors";
import { p } from "./params";

/** GitLab's offset pagination (docs/compat.md, "Pagination"; lib/api/pagination_params.rb, 15.3+ rules). */
export const MAX_PER_PAGE = 100;
export const COUNT_LIMIT = 10_000;
export const MAX_OFFSET = 50_000;

const positive = (schema: ReturnType<typeof p.int>) =>
  schema.refine((n) => n >= 1, { message: "does not have a valid value" });

export const pageParams = z.object({
  page: positive(p.int()).optional(),
  per_page: positive(p.int()).optional(),
});

export type Page = { page: number; perPage: number; offset: number; limit: number };

export function pageOf(params: { page?: number; per_page?: number }): Page {
  const page = params.page ?? 1;
  const perPage = Math.min(params.per_page ?? 20, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage, limit: perPage };
}

/** How far a capped count counts: past 10,000, and far enough that `X-Next-Page` stays exact on deep pages. */
const capOf = (page: Pick<Page, "offset" | "limit">) => Math.max(COUNT_LIMIT + 1, page.offset + page.limit + 1);

/**
 * Counts the rows of `query` (a select of anything, filtered as the list is) with a cap: above 10,000
 * GitLab omits the totals, and `count(*)` of a large table costs more than the page. The cap grows with
 * the offset so that `X-Next-Page` stays exact on deep pages.
 */
export async function cappedCount(db: Executor, query: { limit(n: number): SQLWrapper }, page: Page): Promise<number> {
  const cap = capOf(page);
  const result = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (${query.limit(cap)}) AS counted`);
  return Number(result.rows[0].n);
}

/**
 * The page's ids in list order and the capped count of the filtered set (as `cappedCount`), in one
 * statement. Lists whose rows are costly to write as SQL (joins of 100+ columns) read the page's ids
 * here, from small queries (`filtered`: a select of anything with the list's filters; `ordered`: a
 * select of `id` with the filters, order, limit and offset), and then the rows with a prepared query
 * by id (kernel/db.ts `preparedQuery`): the same number of statements as rows + count.
 *
 * `lowerBound`, when the list has one, is a scalar subquery that never exceeds the filtered set's size
 * (a sum of counters kept by the database, e.g. `issue_counts`): when it reaches the cap the rows are
 * not counted, so a list known to be longer than 10,000 costs the same at any size. The answer is the
 * same either way.
 */
export async function pageIdsWithCount(
  db: Executor,
  filtered: { limit(n: number): SQLWrapper },
  ordered: SQLWrapper,
  page: Page,
  lowerBound?: SQLWrapper,
): Promise<{ ids: number[]; total: number }> {
  const cap = capOf(page);
  // ARRAY(subquery) keeps the subquery's output order, which is its ORDER BY.
  const result = await db.execute<{ n: number; ids: number[] }>(
    sql`SELECT ${cappedCountOf(filtered.limit(cap), cap, lowerBound)} AS n, ARRAY(SELECT page.id FROM (${ordered}) AS page) AS ids`,
  );
  const row = result.rows[0];
  return { ids: row.ids.map(Number), total: Number(row.n) };
}

/**
 * The count of `limited` (the filtered rows, limited to `cap`), or `cap` without counting when
 * `lowerBound` already reaches it. Postgres runs an uncorrelated subquery (an InitPlan) only when its
 * value is first needed, so the CASE reads the bound first and counts only below it.
 */
function cappedCountOf(limited: SQLWrapper, cap: SQLWrapper | number, lowerBound: SQLWrapper | undefined) {
  const count = sql`(SELECT count(*)::int FROM (${limited}) AS counted)`;
  if (!lowerBound) return count;
  return sql`(CASE WHEN (${lowerBound}) >= ${cap}::int THEN ${cap}::int ELSE ${count} END)`;
}

/** Where a prepared page starts and ends: literal numbers on a first page, placeholders on any other. */
export type PageWindow = { limit: Placeholder; offset: Placeholder };

/**
 * A number written into the SQL text. Drizzle sends a number given to `limit()` as a parameter, and in a
 * generic plan Postgres estimates `LIMIT $n` as a tenth of the rows: at 100,000 issues a project's
 * first page was costed as 10,000 rows, so the plan cache kept planning it per call (about 4 ms). The
 * value is an integer the kernel computed, never input.
 */
const literal = (n: number) => sql.raw(String(Math.trunc(n))) as unknown as Placeholder;

/**
 * `pageIdsWithCount` for a list whose filters do not vary between calls, as prepared queries
 * (kernel/db.ts `preparedQuery`): the SQL is built once per isolate and planned once per backend instead
 * of on every request. `build` writes `filtered` and `ordered` for one variant (`variant`: the caller's
 * actor shape, the order, …), with `ordered` limited by `window`; other placeholders' values come with
 * each call; `lowerBound` as in `pageIdsWithCount`. Each variant is prepared on first use.
 *
 * A first page (offset 0, the common call) is prepared per page size with its limit and the count's cap
 * written as numbers, so the generic plan is costed for the rows it reads; later pages share one
 * statement with placeholders.
 */
export function preparedPageIds<A extends (string | number)[]>(
  build: (
    db: Executor,
    window: PageWindow,
    ...variant: A
  ) => { filtered: { limit(n: Placeholder): SQLWrapper }; ordered: SQLWrapper; lowerBound?: SQLWrapper },
) {
  type Row = { n: number; ids: number[] };
  const variants = new Map<string, (db: Executor, values: Record<string, unknown>) => Promise<Row[]>>();
  const prepare = (variant: A, firstPageSize: number | null) =>
    preparedQuery<Record<string, unknown>, Row[]>((db) => {
      const window =
        firstPageSize === null
          ? { limit: sql.placeholder("limit"), offset: sql.placeholder("offset") }
          : { limit: literal(firstPageSize), offset: literal(0) };
      const cap = firstPageSize === null ? sql.placeholder("cap") : literal(capOf({ offset: 0, limit: firstPageSize }));
      const { filtered, ordered, lowerBound } = build(db, window, ...variant);
      return db
        .select({
          n: sql<number>`${cappedCountOf(filtered.limit(cap), sql`${cap}`, lowerBound)}`,
          ids: sql<number[]>`ARRAY(SELECT page.id FROM (${ordered}) AS page)`,
        })
        .from(sql`(VALUES (1)) AS one(x)`);
    });
  return async (db: Executor, variant: A, values: Record<string, unknown>, page: Page): Promise<{ ids: number[]; total: number }> => {
    const firstPageSize = page.offset === 0 ? page.limit : null;
    const key = `${variant.join(" ")} ${firstPageSize ?? "later"}`;
    let prepared = variants.get(key);
    if (!prepared) variants.set(key, (prepared = prepare(variant, firstPageSize)));
    const [row] = await prepared(db, { ...values, cap: capOf(page), limit: page.limit, offset: page.offset });
    return { ids: row.ids.map(Number), total: Number(row.n) };
  };
}

/** `rows` (read by id, in any order) in the order of `ids`. */
export function inIdOrder<T>(ids: number[], rows: T[], idOf: (row: T) => number): T[] {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function pageUrl(c: Ctx, page: number, perPage: number): string {
  const url = new URL(c.req.url);
  url.pathname = url.pathname.replace(/\/{2,}/g, "/");
  url.searchParams.set("page", String(page));
  url.searchParams.set("per_page", String(perPage));
  return url.toString();
}

/** Offset headers and `Link` for a list of `total` rows (lib/gitlab/pagination/offset_header_builder.rb). */
export function paginate(c: Ctx, page: Page, total: number): void {
  const known = total <= COUNT_LIMIT;
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const hasNext = total > page.offset + page.perPage;
  const next = hasNext ? page.page + 1 : null;
  const prev = page.page > 1 && page.page <= totalPages + 1 ? page.page - 1 : null;
  writeHeaders(c, page, { next, prev, total: known ? total : null, totalPages: known ? totalPages : null });
}

/**
 * The commits list pretends the total is `offset + rows + 1` while a page is full: a full page always
 * advertises a next page, a short page never does, and no totals are sent (lib/api/commits.rb).
 */
export function paginateWithoutCount(c: Ctx, page: Page, rowsOnPage: number): void {
  const next = rowsOnPage >= page.perPage ? page.page + 1 : null;
  const prev = page.page > 1 ? page.page - 1 : null;
  writeHeaders(c, page, { next, prev, total: null, totalPages: null });
}

/**
 * Kaminari's `without_count` (the search API's issues, merge requests, projects, …): the next page is
 * known from one row read past the page; no `X-Total`, `X-Total-Pages` or `rel="last"`
 * (Gitlab::Pagination::OffsetPagination#data_without_counts?).
 */
export function paginateWithoutTotal(c: Ctx, page: Page, hasNext: boolean): void {
  writeHeaders(c, page, { next: hasNext ? page.page + 1 : null, prev: page.page > 1 ? page.page - 1 : null, total: null, totalPages: null });
}

function writeHeaders(
  c: Ctx,
  page: Page,
  h: { next: number | null; prev: number | null; total: number | null; totalPages: number | null },
) {
  c.header("X-Page", String(page.page));
  c.header("X-Per-Page", String(page.perPage));
  c.header("X-Next-Page", h.next ? String(h.next) : "");
  c.header("X-Prev-Page", h.prev ? String(h.prev) : "");
  if (h.total !== null) c.header("X-Total", String(h.total));
  if (h.totalPages !== null) c.header("X-Total-Pages", String(h.totalPages));
  const links: string[] = [];
  if (h.prev) links.push(`<${pageUrl(c, h.prev, page.perPage)}>; rel="prev"`);
  if (h.next) links.push(`<${pageUrl(c, h.next, page.perPage)}>; rel="next"`);
  links.push(`<${pageUrl(c, 1, page.perPage)}>; rel="first"`);
  if (h.totalPages !== null) links.push(`<${pageUrl(c, h.totalPages, page.perPage)}>; rel="last"`);
  c.header("Link", links.join(", "));
}

/** Keyset responses carry only `Link: <…>; rel="next"` while more rows exist (no totals). */
export function keysetLink(c: Ctx, nextParams: Record<string, string> | null, perPage: number): void {
  if (!nextParams) return;
  const url = new URL(c.req.url);
  url.pathname = url.pathname.replace(/\/{2,}/g, "/");
  url.searchParams.delete("page");
  url.searchParams.set("per_page", String(perPage));
  for (const [key, value] of Object.entries(nextParams)) url.searchParams.set(key, value);
  c.header("Link", `<${url.toString()}>; rel="next"`);
}

/**
 * For resources that offer keyset pagination, offsets beyond 50,000 are refused (P7). GitLab tests
 * `page * per_page > limit` (`offset_limit_exceeded?`), so page 501 of 100 is already refused.
 */
export function refuseDeepOffset(page: Page, type: string): void {
  if (page.page * page.perPage > MAX_OFFSET)
    throw methodNotAllowed(
      `Offset pagination has a maximum allowed offset of ${MAX_OFFSET} for requests that return objects of type ${type}. Remaining records can be retrieved using keyset pagination.`,
    );
}

export const keysetUnavailable = () =>
  methodNotAllowed("Keyset pagination is not yet available for this type of request");
