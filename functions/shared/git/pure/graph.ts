// Commit-graph arithmetic over commits held in memory (docs/git.md, "Tables"): parents-first order and git's
// generation numbers (1 for a root, 1 + the largest parent generation otherwise).
import type { Commit } from "./objects";

export type CommitToIndex = { oid: string; commit: Commit };

/** Parents before children (the batch may arrive in any order). */
export function topoOrder<T extends CommitToIndex>(commits: T[]): T[] {
  const byOid = new Map(commits.map((c) => [c.oid, c]));
  const done = new Set<string>();
  const out: T[] = [];
  for (const start of commits) {
    const stack: [T, number][] = [[start, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [item, i] = top;
      if (done.has(item.oid)) {
        stack.pop();
        continue;
      }
      if (i < item.commit.parents.length) {
        top[1]++;
        const parent = byOid.get(item.commit.parents[i]);
        if (parent && !done.has(parent.oid)) stack.push([parent, 0]);
        continue;
      }
      done.add(item.oid);
      out.push(item);
      stack.pop();
    }
  }
  return out;
}

/**
 * Generation numbers of `ordered` (parents first), parents outside the list looked up with `known`
 * (0 when unknown, as for a root).
 */
export function generations(ordered: CommitToIndex[], known: (oid: string) => number | undefined): Map<string, number> {
  const generation = new Map<string, number>();
  for (const { oid, commit } of ordered) {
    let max = 0;
    for (const parent of commit.parents) max = Math.max(max, generation.get(parent) ?? known(parent) ?? 0);
    generation.set(oid, max + 1);
  }
  return generation;
}
