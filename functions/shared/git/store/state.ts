// The state a git write plans from, read in ONE statement: branch tips with their
// commits' trees and generations, whether the project has a branch, a start sha's commit, the
// project's branch protections and, on request, what the write reads next anyway: the root trees it
// edits (into the decoded-tree cache), the first batch of history for `last_commit_id` checks, and the
// commit a cherry-pick or revert applies. Everything comes from one snapshot, so the tips, the
// history and the protections agree with each other.
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../../kernel/db";
import { levelsJson } from "../../protected_branches/read";
import { parsePushRuleContext, pushRuleContextSql, type PushRuleContext } from "../../push_rules";
import { decodeCommit, inflate, type Commit } from "../pure/objects";
import type { CommitLoader, HistoryRow } from "./loader";
import { primeTrees, rowBytes } from "./objects";
import type { Repo } from "./revisions";

/** A protected branch as the state read returns it (the protected_branches domain interprets it). */
export type ProtectionRow = {
  id: number;
  name: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  created_at: string;
  updated_at: string;
  levels: { id: number; action: "push" | "merge" | "unprotect"; access_level: number }[];
};

export type BranchTip = { target: string; peeled: string | null; tree: string | null; generation: number | null };

export type BranchState = {
  tips: Map<string, BranchTip>;
  /** GitLab's `empty_repo?` is "no branches". */
  hasBranches: boolean;
  /** The start sha's commit row, when one was asked for (null: not a commit of the pool). */
  startSha: { tree: string; generation: number } | null;
  protections: ProtectionRow[];
};

/** A stored line count of a commit's change (`git_commit_changes`), modes in git's octal text. */
export type CountedPair = { oldMode: string | null; oldOid: string | null; newMode: string | null; newOid: string | null; additions: number; deletions: number; binary: boolean };

/**
 * The commit a cherry-pick or revert applies: its tree, its first parent's tree, the decoded object,
 * and the line counts of its changes against that parent (renames left out: they count 0/0), which
 * the new commit's index reuses for the paths it changes the same way.
 */
export type PickedCommit = { tree: string; parentTree: string | null; commit: Commit; counts: CountedPair[] };

export type StateRequest = {
  /** Full ref names whose tips to read. */
  names: string[];
  startSha?: string | null;
  protections?: boolean;
  /** Put the root trees of the tips and of the start sha into the decoded-tree cache. */
  rootTrees?: boolean;
  /**
   * The first batch of `loader`'s history from a ref of this project (its tip, peeled) or a full id,
   * handed to the loader: the `last_commit_id` walks then usually need no statement of their own.
   */
  history?: { loader: CommitLoader; from: { ref: string } | { oid: string } };
  /** A commit to read with its object and its first parent's tree (root trees cached too). */
  commit?: string | null;
  /** The push rule that applies, with the writer's verified emails and which author emails are known. */
  pushRule?: { userId: number; authorEmails: string[] } | null;
};

export type RepoState = BranchState & { commit: PickedCommit | null; pushRule: PushRuleContext | null };

type StateRow = {
  name: string | null;
  target: string;
  peeled: string | null;
  tree: string | null;
  generation: number | null;
  tree_zdata: Uint8Array | string | null;
  has_branches: boolean;
  sha_tree: string | null;
  sha_generation: number | null;
  sha_tree_zdata: Uint8Array | string | null;
  protections: ProtectionRow[] | string | null;
  history: HistoryRow[] | string | null;
  pick_tree: string | null;
  pick_parent_tree: string | null;
  pick_zdata: Uint8Array | string | null;
  pick_tree_zdata: Uint8Array | string | null;
  pick_parent_tree_zdata: Uint8Array | string | null;
  pick_counts: { om: number | null; o: string | null; nm: number | null; n: string | null; a: number; d: number; b: boolean }[] | string | null;
  push_rule: Parameters<typeof parsePushRuleContext>[0];
};

const json = <T>(value: T | string | null): T | null => (value === null ? null : typeof value === "string" ? (JSON.parse(value) as T) : value);

/** The project's protected branches as one JSON array (ProtectionRow[]). */
function protectionsJson(projectId: number): SQL {
  return sql`(SELECT json_agg(json_build_object('id', pb.id, 'name', pb.name, 'allow_force_push', pb.allow_force_push,
            'code_owner_approval_required', pb.code_owner_approval_required, 'created_at', pb.created_at, 'updated_at', pb.updated_at,
            'levels', ${levelsJson}) ORDER BY pb.id)
           FROM protected_branches pb WHERE pb.project_id = ${projectId})`;
}

/** The picked commit's stored line counts (`pc`: its row), renames left out. */
function pickCountsJson(poolId: number): SQL {
  return sql`(SELECT json_agg(json_build_object('om', ch.old_mode, 'o', ch.old_oid, 'nm', ch.new_mode, 'n', ch.new_oid, 'a', ch.additions, 'd', ch.deletions, 'b', ch.binary))
           FROM git_commit_changes ch WHERE ch.pool_id = ${poolId} AND ch.commit_oid = pc.oid AND ch.status <> 'R')`;
}

const octal = (mode: number | null) => (mode === null ? null : mode.toString(8));

/** Reads what `request` asks for in one statement. */
export async function readRepoState(db: Executor, repo: Repo, request: StateRequest): Promise<RepoState> {
  const { projectId, poolId } = repo;
  const trees = !!request.rootTrees;
  const protections = request.protections ? protectionsJson(projectId) : sql`NULL::json`;
  const history = request.history;
  let historySql: SQL = sql`NULL::json`;
  if (history) {
    const seed = "ref" in history.from
      ? sql`(SELECT coalesce(hr.peeled, hr.target) FROM git_refs hr WHERE hr.project_id = ${projectId} AND hr.name = ${history.from.ref})`
      : sql`${history.from.oid}`;
    historySql = sql`(SELECT json_agg(h) FROM (${history.loader.historyQuery(seed)}) h)`;
  }
  // Objects are keyed by their binary id; commits store hex.
  const objectJoin = (alias: string, hexColumn: SQL, wanted: boolean) =>
    wanted ? sql`LEFT JOIN git_objects ${sql.raw(alias)} ON ${sql.raw(alias)}.pool_id = ${poolId} AND ${sql.raw(alias)}.oid = decode(${hexColumn}::text, 'hex')` : sql``;
  const picked = request.commit ?? "";
  const result = await db.execute<StateRow>(sql`
    SELECT r.name, r.target, r.peeled, c.tree, c.generation, ${trees ? sql`ct.zdata` : sql`NULL::bytea`} AS tree_zdata,
           EXISTS (SELECT 1 FROM git_refs b WHERE b.project_id = ${projectId} AND b.name LIKE 'refs/heads/%') AS has_branches,
           s.tree AS sha_tree, s.generation AS sha_generation, ${trees ? sql`st.zdata` : sql`NULL::bytea`} AS sha_tree_zdata,
           ${protections} AS protections, ${historySql} AS history,
           pc.tree AS pick_tree, pp.tree AS pick_parent_tree, ${request.commit ? sql`po.zdata AS pick_zdata, pt.zdata AS pick_tree_zdata, ppt.zdata AS pick_parent_tree_zdata` : sql`NULL::bytea AS pick_zdata, NULL::bytea AS pick_tree_zdata, NULL::bytea AS pick_parent_tree_zdata`},
           ${request.commit ? pickCountsJson(poolId) : sql`NULL::json`} AS pick_counts,
           ${request.pushRule ? pushRuleContextSql(projectId, request.pushRule.userId, request.pushRule.authorEmails) : sql`NULL::json`} AS push_rule
      FROM (SELECT 1) AS one
      LEFT JOIN git_commits s ON s.pool_id = ${poolId} AND s.oid = ${request.startSha ?? ""}
      ${objectJoin("st", sql`s.tree`, trees)}
      LEFT JOIN git_commits pc ON pc.pool_id = ${poolId} AND pc.oid = ${picked}
      LEFT JOIN git_commits pp ON pp.pool_id = ${poolId} AND pp.oid = pc.parents[1]
      ${objectJoin("po", sql`pc.oid`, !!request.commit)}
      ${objectJoin("pt", sql`pc.tree`, !!request.commit)}
      ${objectJoin("ppt", sql`pp.tree`, !!request.commit)}
      LEFT JOIN git_refs r ON r.project_id = ${projectId} AND r.name = ANY(${sql.param(request.names)}::text[])
      LEFT JOIN git_commits c ON c.pool_id = ${poolId} AND c.oid = coalesce(r.peeled, r.target)
      ${objectJoin("ct", sql`c.tree`, trees)}`);
  const rows = result.rows;
  const first = rows[0];
  const tips = new Map<string, BranchTip>();
  const treeRows: { oid: string; zdata: Uint8Array | string | null }[] = [];
  for (const row of rows) {
    if (!row.name) continue;
    tips.set(row.name, { target: row.target, peeled: row.peeled, tree: row.tree, generation: row.generation === null ? null : Number(row.generation) });
    if (row.tree) treeRows.push({ oid: row.tree, zdata: row.tree_zdata });
  }
  if (first?.sha_tree) treeRows.push({ oid: first.sha_tree, zdata: first.sha_tree_zdata });
  let commit: PickedCommit | null = null;
  if (first?.pick_tree && first.pick_zdata !== null) {
    const counts = (json(first.pick_counts) ?? []).map((c) => ({ oldMode: octal(c.om), oldOid: c.o, newMode: octal(c.nm), newOid: c.n, additions: c.a, deletions: c.d, binary: c.b }));
    commit = { tree: first.pick_tree, parentTree: first.pick_parent_tree, commit: decodeCommit(inflate(rowBytes(first.pick_zdata))), counts };
    treeRows.push({ oid: first.pick_tree, zdata: first.pick_tree_zdata });
    if (first.pick_parent_tree) treeRows.push({ oid: first.pick_parent_tree, zdata: first.pick_parent_tree_zdata });
  }
  primeTrees(poolId, treeRows);
  if (history) {
    const from = history.from;
    const tip = "ref" in from ? tips.get(from.ref) : null;
    const seed = "ref" in from ? (tip ? tip.peeled ?? tip.target : null) : from.oid;
    history.loader.ingest(json<HistoryRow[]>(first?.history ?? null) ?? [], seed ? [seed] : []);
  }
  return {
    tips,
    hasBranches: first?.has_branches === true,
    startSha: first?.sha_tree ? { tree: first.sha_tree, generation: Number(first.sha_generation) } : null,
    protections: json<ProtectionRow[]>(first?.protections ?? null) ?? [],
    commit,
    pushRule: request.pushRule ? parsePushRuleContext(first?.push_rule ?? null, request.pushRule.authorEmails) : null,
  };
}

/**
 * Branch tips with their commit's tree and generation, whether the project has any branch, the
 * start sha's commit and the project's protections, in one statement.
 */
export async function readBranchState(db: Executor, repo: Repo, names: string[], startSha: string | null = null, withProtections = false): Promise<BranchState> {
  return readRepoState(db, repo, { names, startSha, protections: withProtections });
}

/**
 * The two tips of a merge request, each read from its own project (the source branch may be in a
 * fork: refs belong to a project, objects to the fork network's pool, so both commits are read from
 * the target's pool), with the target project's protections and the source project's on request, and
 * the push rule of the side whose branch the write moves (a merge: the target; a rebase: the source).
 * One statement.
 */
export async function readPairTips(
  db: Executor,
  pair: { source: Repo; target: Repo },
  branches: { sourceRef: string; targetRef: string },
  options: { protections?: boolean; sourceProtections?: boolean; pushRule?: { side: "source" | "target"; userId: number; authorEmails: string[] } } = {},
): Promise<PairTips> {
  const rule = options.pushRule;
  const ruleOf = (side: "source" | "target") => (rule?.side === side ? pushRuleContextSql(pair[side].projectId, rule.userId, rule.authorEmails) : sql`NULL::json`);
  const result = await db.execute<{
    side: string;
    target: string | null;
    peeled: string | null;
    tree: string | null;
    generation: number | null;
    protections: ProtectionRow[] | string | null;
    push_rule: Parameters<typeof parsePushRuleContext>[0];
  }>(sql`
    SELECT v.side, r.target, r.peeled, c.tree, c.generation, v.protections, v.push_rule
      FROM (VALUES ('source', ${pair.source.projectId}::int, ${branches.sourceRef}::text, ${options.sourceProtections ? protectionsJson(pair.source.projectId) : sql`NULL::json`}, ${ruleOf("source")}),
                   ('target', ${pair.target.projectId}::int, ${branches.targetRef}::text, ${options.protections ? protectionsJson(pair.target.projectId) : sql`NULL::json`}, ${ruleOf("target")}))
             AS v(side, project_id, name, protections, push_rule)
      LEFT JOIN git_refs r ON r.project_id = v.project_id AND r.name = v.name
      LEFT JOIN git_commits c ON c.pool_id = ${pair.target.poolId} AND c.oid = coalesce(r.peeled, r.target)`);
  const row = (side: string) => result.rows.find((r) => r.side === side);
  const tip = (side: string): BranchTip | undefined => {
    const found = row(side);
    if (!found?.target) return undefined;
    return { target: found.target, peeled: found.peeled, tree: found.tree, generation: found.generation === null ? null : Number(found.generation) };
  };
  return {
    source: tip("source"),
    target: tip("target"),
    protections: json<ProtectionRow[]>(row("target")?.protections ?? null) ?? [],
    sourceProtections: json<ProtectionRow[]>(row("source")?.protections ?? null) ?? [],
    pushRule: rule ? parsePushRuleContext(row(rule.side)?.push_rule ?? null, rule.authorEmails) : null,
  };
}

/** A merge request's two tips (undefined: the branch is missing), the protections and the push rule asked for. */
export type PairTips = {
  source: BranchTip | undefined;
  target: BranchTip | undefined;
  protections: ProtectionRow[];
  sourceProtections: ProtectionRow[];
  /** The push rule context of the side asked for (null when not asked). */
  pushRule: PushRuleContext | null;
};
