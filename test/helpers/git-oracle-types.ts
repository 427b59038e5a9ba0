// The shape of the git oracle fixtures that test/git-fixtures.ts builds with the git CLI (Node side)
// and global setup provides to the workerd tests as `inject("gitFixtures")`.

export type FixtureObject = { oid: string; type: "commit" | "tree" | "blob" | "tag"; data: string /* base64 */ };

export type FixtureLogQuery = {
  refName?: string;
  all?: boolean;
  /** Unix seconds, inclusive (`--after=@<s>`). */
  since?: number;
  /** Unix seconds, inclusive (`--before=@<s>`). */
  until?: number;
  path?: string;
  firstParent?: boolean;
  order: "default" | "topo";
  offset: number;
  limit: number;
};

export type FixtureLogCase = { name: string; args: string[]; query: FixtureLogQuery; expected: string[] };

/** One file of `git diff --numstat -M100% <first parent or empty tree> <commit>`; null counts = binary. */
export type FixtureNumstat = { path: string; oldPath: string | null; additions: number | null; deletions: number | null };

export type FixtureMergeCase = {
  name: string;
  ours: string;
  base: string;
  theirs: string;
  /** `git merge-file -p ours base theirs`: clean (exit 0) and its output. */
  clean: boolean;
  result: string;
};

export type GitFixtures = {
  objects: FixtureObject[];
  refs: { name: string; target: string; peeled: string | null }[];
  defaultBranch: string;
  commitCount: number;
  logCases: FixtureLogCase[];
  numstat: Record<string, FixtureNumstat[]>;
  merges: FixtureMergeCase[];
  gitVersion: string;
  /** `git for-each-ref --format=%(refname) --contains <oid> refs/heads refs/tags`, by commit id. */
  contains: Record<string, string[]>;
  /** `git ls-tree -z [-r -t] <rev> [<path>/]`. */
  lsTree: { rev: string; path: string; recursive: boolean; entries: { mode: string; type: string; oid: string; path: string }[] }[];
  /** `git merge-base <refs…>` (null when there is none). */
  mergeBases: { refs: string[]; expected: string | null }[];
  /** `git log --reverse --format=%H from..to` and `git diff --numstat -M100% from...to` (`from..to` when straight). */
  compares: { from: string; to: string; straight: boolean; commits: string[]; numstat: FixtureNumstat[] }[];
};

declare module "vitest" {
  export interface ProvidedContext {
    gitFixtures: GitFixtures;
  }
}
