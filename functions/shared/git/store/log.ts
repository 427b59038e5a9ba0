// `git log` semantics (docs/git.md, "The commits list (git log)"), reproduced step by step from git 2.39's revision walk
// (revision.c: prepare_revision_walk, limit_list, process_parents, try_to_simplify_commit,
// get_commit_action, sort_in_topological_order) so that the order, the since/until cut-offs under
// clock skew and the path simplification give what `git log` gives on the same history. Repositories
// are assumed to have no commit-graph file, as in the oracle tests: `--topo-order` is then a limited
// walk followed by the stack-based topological sort.
import type { Executor } from "../../../kernel/db";
import { CommitLoader, type CommitData, type CommitSource } from "./loader";
import { entriesAtPath, storeSource, type ObjectSource } from "./trees";

const SEEN = 1 << 0;
const UNINTERESTING = 1 << 1;
const TREESAME = 1 << 2;
const SHOWN = 1 << 3;
const ADDED = 1 << 4;
const BOTTOM = 1 << 5;
const SYMMETRIC_LEFT = 1 << 6;
// merge-base painting (commit-reach.c)
const PARENT1 = 1 << 10;
const PARENT2 = 1 << 11;
const STALE = 1 << 12;
const RESULT = 1 << 13;

/** How many extra uninteresting commits limit_list looks at before stopping (git's SLOP). */
const SLOP = 5;

class Node {
  flags = 0;
  parsed = false;
  /** Set when parsed; rewritten by history simplification like git's `commit->parents`. */
  parents: Node[] | null = null;
  date = 0;
  data: CommitData | null = null;
  constructor(readonly oid: string) {}
}

/** The revisions given to `git log`. */
export type RevSpec =
  | { kind: "tips"; include: string[]; exclude?: string[] }
  | { kind: "symmetric"; left: string; right: string };

export type LogOptions = {
  firstParent?: boolean;
  topo?: boolean;
  /** `--after`: unix seconds, inclusive. */
  since?: number | null;
  /** `--before`: unix seconds, inclusive. */
  until?: number | null;
  /** Literal path (`-- <path>`), with git's default history simplification. */
  path?: string | null;
  skip?: number;
  maxCount?: number | null;
  /** `--reverse` (applied after skip and max-count, as git does). */
  reverse?: boolean;
  /** `--no-merges` (git's `max_parents = 1`): merges are walked through, not shown. */
  noMerges?: boolean;
};

export class CommitNotFoundError extends Error {
  constructor(readonly oid: string) {
    super(`commit ${oid} is not in the repository`);
  }
}

/**
 * One revision walk over a pool's commit index. Build it, then `log(spec, options)` once. The loader
 * and node table also serve revision resolution (`commit()`) and merge bases beforehand, as git
 * parses those commits in the same process.
 */
export class RevWalk {
  private readonly nodes = new Map<string, Node>();
  private readonly unloaded = new Set<string>();
  private readonly entryCache = new Map<string, string>();
  private readonly source: ObjectSource;
  readonly loader: CommitSource;
  private options: Required<Pick<LogOptions, "firstParent" | "topo">> & LogOptions = { firstParent: false, topo: false };

  constructor(
    db: Executor,
    readonly poolId: number,
    options: { path?: string | null; batch?: number; loader?: CommitSource } = {},
  ) {
    this.loader = options.loader ?? new CommitLoader(db, poolId, { path: options.path, batch: options.batch });
    this.source = storeSource(db, poolId);
  }

  private node(oid: string): Node {
    let node = this.nodes.get(oid);
    if (!node) {
      node = new Node(oid);
      this.nodes.set(oid, node);
      if (!this.loader.has(oid)) this.unloaded.add(oid);
    }
    return node;
  }

  /** git's parse_commit: fills parents and date, loading a batch of history when needed. */
  private async parse(node: Node): Promise<void> {
    if (node.parsed) return;
    let data = this.loader.get(node.oid);
    if (!data) {
      await this.preload([node.oid]);
      data = this.loader.get(node.oid);
      if (!data) throw new CommitNotFoundError(node.oid);
    }
    node.data = data;
    node.date = data.date;
    node.parents = data.parents.map((p) => this.node(p));
    node.parsed = true;
  }

  /** Loads these commits (and a batch of their history) in one statement, before parsing them. */
  async preload(oids: string[]): Promise<void> {
    const missing = oids.filter((oid) => !this.loader.has(oid));
    if (missing.length === 0) return;
    const added = await this.loader.load(missing, this.unloaded);
    for (const oid of [...this.unloaded]) if (this.loader.has(oid)) this.unloaded.delete(oid);
    await this.prefetchMergeEntries(added);
  }

  /**
   * With a path filter, a merge that differs from its first parent on the path is compared with its
   * other parents by resolving the path in their trees. Do it for a whole loaded batch at once (one
   * statement per path depth) rather than merge by merge.
   */
  private async prefetchMergeEntries(added: CommitData[]): Promise<void> {
    const path = this.loader.options.path;
    if (!path || this.options.firstParent) return;
    const roots = new Set<string>();
    for (const data of added) {
      if (data.parents.length < 2 || !data.touches) continue;
      const trees = [data.tree, ...data.parents.slice(1).map((p) => this.loader.get(p)?.tree)];
      for (const tree of trees) if (tree && !this.entryCache.has(tree)) roots.add(tree);
    }
    if (roots.size) await this.resolveEntries([...roots]);
  }

  /** Parses a commit by id (for revision suffixes such as `~2`); null when it is not in the pool. */
  async commit(oid: string): Promise<CommitData | null> {
    const node = this.node(oid);
    try {
      await this.parse(node);
    } catch (error) {
      if (error instanceof CommitNotFoundError) return null;
      throw error;
    }
    return node.data;
  }

  // -------------------------------------------------------------------------------------------------
  // Merge bases (commit-reach.c: paint_down_to_common + remove_redundant)

  /**
   * All best common ancestors of `a` and `b`, newest first. With several `b`s: those of `a` and a
   * hypothetical merge of all of them (`git merge-base A B C`, get_merge_bases_many).
   */
  async mergeBases(a: string, b: string | string[]): Promise<string[]> {
    const one = this.node(a);
    const twos = (Array.isArray(b) ? b : [b]).map((oid) => this.node(oid));
    await this.parse(one);
    for (const two of twos) await this.parse(two);
    if (twos.includes(one)) return [one.oid];
    const touched = new Set<Node>([one, ...twos]);
    one.flags |= PARENT1;
    for (const two of twos) two.flags |= PARENT2;
    const queue = new DateQueue();
    queue.put(one);
    for (const two of twos) queue.put(two);
    const result: Node[] = [];
    while (queue.hasNonStale()) {
      const commit = queue.get()!;
      let flags = commit.flags & (PARENT1 | PARENT2 | STALE);
      if (flags === (PARENT1 | PARENT2)) {
        if (!(commit.flags & RESULT)) {
          commit.flags |= RESULT;
          insertByDate(result, commit);
        }
        flags |= STALE;
      }
      for (const p of commit.parents!) {
        if ((p.flags & flags) === flags) continue;
        await this.parse(p);
        p.flags |= flags;
        touched.add(p);
        queue.put(p);
      }
    }
    const candidates = result.filter((c) => !(c.flags & STALE));
    for (const node of touched) node.flags &= ~(PARENT1 | PARENT2 | STALE | RESULT);
    const bases = await this.removeRedundant(candidates);
    const sorted: Node[] = [];
    for (const base of bases) insertByDate(sorted, base);
    return sorted.map((n) => n.oid);
  }

  /** Drops candidates that are ancestors of another candidate (bounded by generation numbers). */
  private async removeRedundant(candidates: Node[]): Promise<Node[]> {
    if (candidates.length < 2) return candidates;
    const minGeneration = Math.min(...candidates.map((c) => c.data!.generation));
    const redundant = new Set<Node>();
    for (const start of candidates) {
      if (redundant.has(start)) continue;
      const seen = new Set<Node>();
      const stack = [...start.parents!];
      while (stack.length) {
        const n = stack.pop()!;
        if (seen.has(n)) continue;
        seen.add(n);
        await this.parse(n);
        if (n.data!.generation < minGeneration) continue;
        if (candidates.includes(n)) redundant.add(n);
        stack.push(...n.parents!);
      }
    }
    return candidates.filter((c) => !redundant.has(c));
  }

  // -------------------------------------------------------------------------------------------------
  // The walk

  /** The commit ids `git log --format=%H <options> <revs> [-- <path>]` prints, in order. */
  async log(spec: RevSpec, options: LogOptions): Promise<string[]> {
    this.options = { ...options, firstParent: !!options.firstParent, topo: !!options.topo };
    // Pending objects in the order git adds them, with their flags.
    const pending: { node: Node; flags: number }[] = [];
    if (spec.kind === "symmetric") {
      const bases = await this.mergeBases(spec.left, spec.right);
      for (const base of bases) pending.push({ node: this.node(base), flags: UNINTERESTING | BOTTOM });
      pending.push({ node: this.node(spec.left), flags: SYMMETRIC_LEFT });
      pending.push({ node: this.node(spec.right), flags: 0 });
    } else {
      // `A..B` adds ^A then B; plain revisions keep their order.
      for (const oid of spec.exclude ?? []) pending.push({ node: this.node(oid), flags: UNINTERESTING | BOTTOM });
      for (const oid of spec.include) pending.push({ node: this.node(oid), flags: 0 });
    }
    for (const entry of pending) entry.node.flags |= entry.flags;

    // prepare_revision_walk
    let limited = this.options.topo;
    let list: Node[] = [];
    for (const { node } of pending) {
      await this.parse(node);
      if (node.flags & UNINTERESTING) {
        this.markParentsUninteresting(node);
        limited = true;
      }
      if (!(node.flags & SEEN)) {
        node.flags |= SEEN;
        list.push(node);
      }
    }
    list = stableSortByDate(list);
    if (limited) {
      this.loader.raiseBatch(5000);
      list = await this.limitList(list);
      if (this.options.topo) list = sortInTopologicalOrder(list);
    }

    // get_revision with --skip, --max-count, --reverse
    const out: string[] = [];
    let skip = this.options.skip ?? 0;
    let remaining = this.options.maxCount ?? -1;
    while (remaining !== 0) {
      const commit = await this.nextRevision(list, limited);
      if (!commit) break;
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push(commit.oid);
      if (remaining > 0) remaining--;
    }
    return this.options.reverse ? out.reverse() : out;
  }

  /** get_revision_1 + get_commit_action. */
  private async nextRevision(list: Node[], limited: boolean): Promise<Node | null> {
    for (;;) {
      const commit = list.shift();
      if (!commit) return null;
      if (!limited) {
        if (this.options.since != null && commit.date < this.options.since) continue;
        await this.processParents(commit, list);
      }
      if (this.commitAction(commit) === "ignore") continue;
      commit.flags |= SHOWN;
      return commit;
    }
  }

  private commitAction(commit: Node): "show" | "ignore" {
    if (commit.flags & SHOWN) return "ignore";
    if (commit.flags & UNINTERESTING) return "ignore";
    if (this.options.until != null && commit.date > this.options.until) return "ignore";
    if (this.options.path && commit.flags & TREESAME) return "ignore";
    if (this.options.noMerges && commit.parents!.length > 1) return "ignore";
    return "show";
  }

  /** process_parents (add_parents_to_list). */
  private async processParents(commit: Node, list: Node[]): Promise<void> {
    if (commit.flags & ADDED) return;
    commit.flags |= ADDED;
    if (commit.flags & UNINTERESTING) {
      for (const p of commit.parents!) {
        p.flags |= UNINTERESTING;
        await this.parse(p);
        if (p.parents && p.parents.length) this.markParentsUninteresting(p);
        if (p.flags & SEEN) continue;
        p.flags |= SEEN;
        insertByDate(list, p);
      }
      return;
    }
    await this.tryToSimplifyCommit(commit);
    const leftFlag = commit.flags & SYMMETRIC_LEFT;
    for (const p of commit.parents!) {
      await this.parse(p);
      p.flags |= leftFlag;
      if (!(p.flags & SEEN)) {
        p.flags |= SEEN;
        insertByDate(list, p);
      }
      if (this.options.firstParent) break;
    }
  }

  /** mark_parents_uninteresting: recursively through commits already parsed. */
  private markParentsUninteresting(commit: Node) {
    const stack: Node[] = [];
    const markOne = (c: Node) => {
      if (c.flags & UNINTERESTING) return;
      c.flags |= UNINTERESTING;
      if (c.parents) for (const p of c.parents) stack.push(p);
    };
    for (const p of commit.parents ?? []) markOne(p);
    while (stack.length) markOne(stack.pop()!);
  }

  /** limit_list. */
  private async limitList(list: Node[]): Promise<Node[]> {
    let slop = SLOP;
    let date = Infinity;
    const newlist: Node[] = [];
    let interestingCache: Node | null = null;
    const everybodyUninteresting = () => {
      if (interestingCache && !(interestingCache.flags & UNINTERESTING)) return false;
      for (const c of list) {
        if (c.flags & UNINTERESTING) continue;
        interestingCache = c;
        return false;
      }
      return true;
    };
    const stillInteresting = () => {
      if (list.length === 0) return 0;
      if (date <= list[0].date) return SLOP;
      if (!everybodyUninteresting()) return SLOP;
      return slop - 1;
    };
    while (list.length) {
      const commit = list.shift()!;
      if (commit === interestingCache) interestingCache = null;
      if (this.options.since != null && commit.date < this.options.since) commit.flags |= UNINTERESTING;
      await this.processParents(commit, list);
      if (commit.flags & UNINTERESTING) {
        this.markParentsUninteresting(commit);
        slop = stillInteresting();
        if (slop) continue;
        break;
      }
      if (this.options.until != null && commit.date > this.options.until) continue;
      date = commit.date;
      newlist.push(commit);
    }
    return newlist;
  }

  // -------------------------------------------------------------------------------------------------
  // History simplification for a path (try_to_simplify_commit, default mode)

  private relevant(c: Node) {
    return (c.flags & (UNINTERESTING | BOTTOM)) !== UNINTERESTING;
  }

  private async tryToSimplifyCommit(commit: Node): Promise<void> {
    if (!this.options.path) return;
    const parents = commit.parents!;
    if (parents.length === 0) {
      // rev_same_tree_as_empty: the root's diff against the empty tree does not touch the path.
      if (!commit.data!.touches) commit.flags |= TREESAME;
      return;
    }
    let relevantChange = false;
    let irrelevantChange = false;
    let relevantParents = 0;
    for (let nth = 0; nth < parents.length; nth++) {
      const p = parents[nth];
      if (this.relevant(p)) relevantParents++;
      if (nth === 1 && this.options.firstParent) break;
      await this.parse(p);
      const same = await this.sameOnPath(commit, p, nth);
      if (same) {
        if (!this.relevant(p)) continue;
        commit.parents = [p];
        commit.flags |= TREESAME;
        return;
      }
      if (this.relevant(p)) relevantChange = true;
      else irrelevantChange = true;
    }
    if (relevantParents ? !relevantChange : !irrelevantChange) commit.flags |= TREESAME;
  }

  /** rev_compare_tree restricted to the path: the first parent from the index, others from trees. */
  private async sameOnPath(commit: Node, parent: Node, nth: number): Promise<boolean> {
    if (nth === 0 && commit.data!.parents[0] === parent.oid) return !commit.data!.touches;
    // The merge and all its later parents in one batch (usually prefetched with the commit).
    await this.pathEntries([commit, ...commit.parents!.slice(1)]);
    return this.entryCache.get(commit.data!.tree) === this.entryCache.get(parent.data!.tree);
  }

  /** The path's entry (`mode oid`, or "" when absent) in each commit's tree, resolved in one batch. */
  private async pathEntries(nodes: Node[]): Promise<void> {
    const roots: string[] = [];
    for (const node of nodes) {
      await this.parse(node);
      if (!this.entryCache.has(node.data!.tree)) roots.push(node.data!.tree);
    }
    if (roots.length) await this.resolveEntries(roots);
  }

  private async resolveEntries(roots: string[]): Promise<void> {
    const path = this.loader.options.path!;
    const dirOnly = path.endsWith("/");
    const entries = await entriesAtPath(this.source, roots, path);
    for (const [root, entry] of entries) {
      const valid = entry && (!dirOnly || entry.mode === "40000");
      this.entryCache.set(root, valid ? `${entry.mode} ${entry.oid}` : "");
    }
  }
}

/** commit_list_insert_by_date: after every entry with a date not older (FIFO among equal dates). */
function insertByDate(list: Node[], node: Node) {
  let i = 0;
  while (i < list.length && !(list[i].date < node.date)) i++;
  list.splice(i, 0, node);
}

/** commit_list_sort_by_date: a stable sort, newest first. */
function stableSortByDate(list: Node[]): Node[] {
  return list
    .map((node, index) => ({ node, index }))
    .sort((a, b) => (b.node.date !== a.node.date ? b.node.date - a.node.date : a.index - b.index))
    .map((x) => x.node);
}

/** sort_in_topological_order with REV_SORT_IN_GRAPH_ORDER: a LIFO of ready commits. */
function sortInTopologicalOrder(list: Node[]): Node[] {
  const indegree = new Map<Node, number>();
  for (const c of list) indegree.set(c, 1);
  for (const c of list) {
    for (const p of c.parents ?? []) {
      const pi = indegree.get(p);
      if (pi) indegree.set(p, pi + 1);
    }
  }
  const queue: Node[] = [];
  for (const c of list) if (indegree.get(c) === 1) queue.push(c);
  queue.reverse();
  const out: Node[] = [];
  while (queue.length) {
    const commit = queue.pop()!;
    for (const p of commit.parents ?? []) {
      const pi = indegree.get(p);
      if (!pi) continue;
      indegree.set(p, pi - 1);
      if (pi - 1 === 1) queue.push(p);
    }
    indegree.set(commit, 0);
    out.push(commit);
  }
  return out;
}

/** git's prio_queue ordered by commit date, FIFO among equal dates. */
class DateQueue {
  private items: { node: Node; ctr: number }[] = [];
  private ctr = 0;
  put(node: Node) {
    this.items.push({ node, ctr: this.ctr++ });
  }
  get(): Node | undefined {
    if (this.items.length === 0) return undefined;
    let best = 0;
    for (let i = 1; i < this.items.length; i++) {
      const a = this.items[i];
      const b = this.items[best];
      if (a.node.date > b.node.date || (a.node.date === b.node.date && a.ctr < b.ctr)) best = i;
    }
    return this.items.splice(best, 1)[0].node;
  }
  hasNonStale() {
    return this.items.some((i) => !(i.node.flags & STALE));
  }
}
