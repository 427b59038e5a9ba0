// Loading the commit graph from the commit index (docs/git.md, "Reading", "Loading history"): one recursive CTE
// returns up to N ancestors of the requested commits (oid, parents, date, generation, tree and, with a
// path filter, whether the commit touches the path against its first parent), unsorted, so Postgres
// stops at the LIMIT. The walk asks for more when it meets a commit it has not loaded.
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { commitWalk } from "./walk";

export type CommitData = {
  oid: string;
  parents: string[];
  /** Committer date, unix seconds (git's `commit->date`). */
  date: number;
  generation: number;
  tree: string;
  /** With a path filter: whether the diff against the first parent (or the empty tree) touches it. */
  touches: boolean;
  /** With several paths (`LoaderOptions.paths`): `touches` for each of them, in order. */
  touchesPaths?: boolean[];
};

export type LoaderOptions = {
  /** Literal pathspec (GitLab passes `--literal-pathspecs`); a trailing `/` matches directories only. */
  path?: string | null;
  /** Several literal paths at once (each commit row says which it touches): see `PathView`. */
  paths?: string[];
  /** Rows of the first load; later loads double, up to `maxBatch`. */
  batch?: number;
  maxBatch?: number;
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Splits a pathspec into its exact name (null for `dir/`) and its directory prefix. */
export function pathPatterns(path: string): { exact: string | null; prefix: string } {
  const dirOnly = path.endsWith("/");
  const clean = path.replace(/\/+$/, "");
  return { exact: dirOnly ? null : clean, prefix: `${escapeLike(clean)}/%` };
}

export class CommitLoader {
  private readonly data = new Map<string, CommitData>();
  private readonly absent = new Set<string>();
  private batch: number;
  private readonly maxBatch: number;

  constructor(
    private readonly db: Executor,
    readonly poolId: number,
    readonly options: LoaderOptions = {},
  ) {
    this.batch = options.batch ?? 256;
    this.maxBatch = options.maxBatch ?? 20_000;
  }

  /** A limited walk reads everything it can reach anyway: load generously from now on. */
  raiseBatch(rows: number) {
    this.batch = Math.max(this.batch, Math.min(rows, this.maxBatch));
  }

  get(oid: string): CommitData | undefined {
    return this.data.get(oid);
  }

  has(oid: string): boolean {
    return this.data.has(oid) || this.absent.has(oid);
  }

  /**
   * Loads `oids` and as many of their ancestors (and of `frontier`'s) as the batch allows. Ids that are
   * not commits of the pool are remembered as absent. Returns the commits this call added.
   */
  async load(oids: string[], frontier: Iterable<string> = []): Promise<CommitData[]> {
    const seeds = new Set(oids.filter((oid) => !this.has(oid)));
    if (seeds.size === 0) return [];
    for (const oid of frontier) {
      if (seeds.size >= 2000) break;
      if (!this.has(oid)) seeds.add(oid);
    }
    const result = await this.db.execute<HistoryRow>(this.historyQuery(sql`ANY(${sql.param([...seeds])}::char(40)[])`, Math.max(this.batch, seeds.size)));
    return this.ingest(result.rows, seeds);
  }

  /**
   * The statement `load` runs, from commits matching `seed` (a right-hand side for `c.oid = …`: an id
   * list, or a subquery such as a ref's target), for a caller that puts it into a statement of its own
   * (as a subquery: `(SELECT json_agg(h) FROM (<this>) h)`) and hands the rows to `ingest`.
   */
  historyQuery(seed: SQL, limit = this.batch): SQL {
    const touchesPath = (path: string) => {
      const { exact, prefix } = pathPatterns(path);
      const exactClause = exact === null ? sql`false` : sql`ch.path = ${exact} OR ch.old_path = ${exact}`;
      return sql`EXISTS (SELECT 1 FROM git_commit_changes ch WHERE ch.pool_id = ${this.poolId} AND ch.commit_oid = w.oid
            AND (${exactClause} OR ch.path LIKE ${prefix} OR ch.old_path LIKE ${prefix}))`;
    };
    const path = this.options.path;
    const touches = path ? touchesPath(path) : sql`false`;
    const paths = this.options.paths ?? [];
    const touchesPaths = paths.length ? sql`ARRAY[${sql.join(paths.map(touchesPath), sql`, `)}]` : sql`NULL::boolean[]`;
    return sql`
      WITH RECURSIVE ${commitWalk("walk", this.poolId, {
        seeds: sql`c.oid = ${seed}`,
        columns: [
          ["ts", sql`extract(epoch FROM c.committed_at)::bigint`],
          ["generation", sql`c.generation`],
          ["tree", sql`c.tree`],
        ],
      })}
      SELECT w.oid, w.parents, w.ts, w.generation, w.tree, ${touches} AS touches, ${touchesPaths} AS touches_paths
        FROM walk w
       LIMIT ${limit}`;
  }

  /**
   * Takes the rows of `historyQuery` run from `seeds` (by `load`, or inside another statement). Seeds
   * not among the rows are not commits of the pool: the non-recursive term comes first and fits the
   * LIMIT. Returns the commits added.
   */
  ingest(rows: HistoryRow[], seeds: Iterable<string>): CommitData[] {
    this.batch = Math.min(this.batch * 2, this.maxBatch);
    const added: CommitData[] = [];
    for (const row of rows) {
      const oid = row.oid.trimEnd();
      if (this.data.has(oid)) continue;
      const data: CommitData = {
        oid,
        parents: row.parents.map((p) => p.trimEnd()),
        date: Number(row.ts),
        generation: Number(row.generation),
        tree: row.tree.trimEnd(),
        touches: row.touches === true,
        ...(row.touches_paths ? { touchesPaths: row.touches_paths.map((t) => t === true) } : {}),
      };
      this.data.set(oid, data);
      added.push(data);
    }
    for (const oid of seeds) if (!this.data.has(oid)) this.absent.add(oid);
    return added;
  }
}

/** A row of `CommitLoader#historyQuery` (as the driver or `json_agg` returns it). */
export type HistoryRow = { oid: string; parents: string[]; ts: string | number; generation: number; tree: string; touches: boolean; touches_paths: boolean[] | null };

/** What a revision walk needs from a loader: a `CommitLoader`, or one path's view of a shared one. */
export type CommitSource = Pick<CommitLoader, "get" | "has" | "load" | "raiseBatch"> & { readonly options: LoaderOptions };

/**
 * One path's view of a loader built with `paths`: the same rows, with `touches` for that path. Walks
 * for several paths (the `last_commit_id` checks of one commit) then share one history load.
 */
export class PathView implements CommitSource {
  private readonly views = new Map<string, CommitData>();
  readonly options: LoaderOptions;

  constructor(
    private readonly shared: CommitLoader,
    private readonly index: number,
  ) {
    this.options = { ...shared.options, path: shared.options.paths![index], paths: undefined };
  }

  private view(data: CommitData | undefined): CommitData | undefined {
    if (!data) return undefined;
    let out = this.views.get(data.oid);
    if (!out) {
      out = { ...data, touches: data.touchesPaths?.[this.index] ?? false };
      this.views.set(data.oid, out);
    }
    return out;
  }

  get(oid: string) {
    return this.view(this.shared.get(oid));
  }

  has(oid: string) {
    return this.shared.has(oid);
  }

  raiseBatch(rows: number) {
    this.shared.raiseBatch(rows);
  }

  async load(oids: string[], frontier: Iterable<string> = []) {
    return (await this.shared.load(oids, frontier)).map((data) => this.view(data)!);
  }
}
