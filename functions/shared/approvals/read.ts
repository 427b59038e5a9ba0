// The rows an approval state is computed from (ee/app/models/approval_state.rb's inputs): the project's
// approval settings, its rules or the merge request's own rules with their users, groups, protected
// branches and eligible approvers (a fixed number of statements for any number of rules), the approvals
// given (with approvals voided by a later push removed first) and the merge request's committers.
// Shared because merging (merge_requests) and the approval endpoints (approvals) both decide on it.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, approvalProjectRules, approvalProjectRulesGroups, approvalProjectRulesProtectedBranches, approvalProjectRulesUsers, namespaces, projectApprovalSettings, users, type ApprovalMergeRequestRule, type ApprovalProjectRule, type Namespace, type ProjectApprovalSettings } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import type { Actor } from "../../kernel/env";
import { groupIsVisible } from "../../kernel/visibility";
import { commitsBetween, repoOf } from "../git";
import { listProtections } from "../protected_branches/read";
import type { UserBasicRow } from "../../entities/users";
import type { Approval, ApprovalSettings as Settings, RuleDetails } from "../../entities/approvals";

export type { ApprovalMergeRequestRule, ApprovalProjectRule, ProjectApprovalSettings };
export type { Approval, RuleDetails, Settings };

/** GitLab's defaults for a project whose settings were never changed (no row). */
export const DEFAULT_SETTINGS: Settings = {
  approvalsBeforeMerge: 0,
  resetApprovalsOnPush: true,
  disableOverridingApproversPerMergeRequest: false,
  mergeRequestsAuthorApproval: false,
  mergeRequestsDisableCommittersApproval: false,
  requirePasswordToApprove: false,
};

export const basicUser = { id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email };

export async function getSettings(db: Executor, projectId: number): Promise<Settings> {
  const [row] = await db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, projectId));
  if (!row) return { ...DEFAULT_SETTINGS };
  const { projectId: _, ...settings } = row;
  return settings;
}

/**
 * Whether anything could hold the merge request back, in one statement: a project rule or one of its own
 * rules asking for approvals, the project's `approvals_before_merge` or the merge request's own. When none does, every rule is
 * met whatever was given, so merging and `detailed_merge_status` need not load the approval state.
 */
export async function approvalsMayBlock(db: Executor, projectId: number, mergeRequestId: number): Promise<boolean> {
  const result = await db.execute<{ may_block: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM ${approvalProjectRules} WHERE ${approvalProjectRules.projectId} = ${projectId} AND ${approvalProjectRules.approvalsRequired} > 0)
        OR EXISTS (SELECT 1 FROM ${approvalMergeRequestRules} WHERE ${approvalMergeRequestRules.mergeRequestId} = ${mergeRequestId} AND ${approvalMergeRequestRules.approvalsRequired} > 0)
        OR EXISTS (SELECT 1 FROM ${projectApprovalSettings} WHERE ${projectApprovalSettings.projectId} = ${projectId} AND ${projectApprovalSettings.approvalsBeforeMerge} > 0)
        OR EXISTS (SELECT 1 FROM merge_requests WHERE id = ${mergeRequestId} AND approvals_before_merge > 0)
        AS may_block`);
  return result.rows[0]?.may_block === true;
}

/** The project's rules in id order (or the one `ruleId`), without details. */
export async function listRules(db: Executor, projectId: number, ruleId?: number): Promise<ApprovalProjectRule[]> {
  return db
    .select()
    .from(approvalProjectRules)
    .where(ruleId === undefined ? eq(approvalProjectRules.projectId, projectId) : and(eq(approvalProjectRules.projectId, projectId), eq(approvalProjectRules.id, ruleId)))
    .orderBy(asc(approvalProjectRules.id));
}

/** The merge request's own rules in id order (or the one `ruleId`), without details. */
export async function listMergeRequestRules(db: Executor, mergeRequestId: number, ruleId?: number): Promise<ApprovalMergeRequestRule[]> {
  return db
    .select()
    .from(approvalMergeRequestRules)
    .where(
      ruleId === undefined
        ? eq(approvalMergeRequestRules.mergeRequestId, mergeRequestId)
        : and(eq(approvalMergeRequestRules.mergeRequestId, mergeRequestId), eq(approvalMergeRequestRules.id, ruleId)),
    )
    .orderBy(asc(approvalMergeRequestRules.id));
}

type LinkTables = {
  users: typeof approvalProjectRulesUsers | typeof approvalMergeRequestRulesUsers;
  groups: typeof approvalProjectRulesGroups | typeof approvalMergeRequestRulesGroups;
  usersName: string;
  groupsName: string;
};

const PROJECT_LINKS: LinkTables = {
  users: approvalProjectRulesUsers,
  groups: approvalProjectRulesGroups,
  usersName: "approval_project_rules_users",
  groupsName: "approval_project_rules_groups",
};
const MR_LINKS: LinkTables = {
  users: approvalMergeRequestRulesUsers,
  groups: approvalMergeRequestRulesGroups,
  usersName: "approval_merge_request_rules_users",
  groupsName: "approval_merge_request_rules_groups",
};

type Links = { users: Map<number, UserBasicRow[]>; groups: Map<number, { group: Namespace; visible: boolean }[]>; eligible: Map<number, UserBasicRow[]> };

/** Users, groups and eligible approvers of rules, in three statements whatever their number. */
async function loadLinks(db: Executor, actor: Actor | null, tables: LinkTables, ids: number[]): Promise<Links> {
  const push = <V>(map: Map<number, V[]>, key: number, value: V) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);
  const out: Links = { users: new Map(), groups: new Map(), eligible: new Map() };
  if (ids.length === 0) return out;
  const userRows = await db
    .select({ ruleId: tables.users.ruleId, user: basicUser })
    .from(tables.users)
    .innerJoin(users, eq(users.id, tables.users.userId))
    .where(inArray(tables.users.ruleId, ids))
    .orderBy(asc(users.id));
  for (const r of userRows) push(out.users, r.ruleId, r.user);
  const groupRows = await db
    .select({ ruleId: tables.groups.ruleId, group: namespaces, visible: sql<boolean>`${groupIsVisible(actor)}` })
    .from(tables.groups)
    .innerJoin(namespaces, eq(namespaces.id, tables.groups.groupId))
    .where(inArray(tables.groups.ruleId, ids))
    .orderBy(asc(namespaces.id));
  for (const r of groupRows) push(out.groups, r.ruleId, { group: r.group, visible: r.visible });
  // ApprovalRuleLike#approvers: the rule's users and its groups' direct members, active users only.
  const eligible = await db.execute<{ rule_id: number; id: number; username: string; name: string; state: string; avatar_url: string | null; email: string }>(sql`
    SELECT DISTINCT ON (x.rule_id, u.id) x.rule_id, u.id, u.username, u.name, u.state, u.avatar_url, u.email
      FROM (SELECT ru.rule_id, ru.user_id FROM ${sql.identifier(tables.usersName)} ru WHERE ru.rule_id = ANY(${sql.param(ids)}::int[])
            UNION
            SELECT rg.rule_id, m.user_id FROM ${sql.identifier(tables.groupsName)} rg
              JOIN members m ON m.source_type = 'Namespace' AND m.source_id = rg.group_id
                AND (m.expires_at IS NULL OR m.expires_at > current_date)
             WHERE rg.rule_id = ANY(${sql.param(ids)}::int[])) x
      JOIN users u ON u.id = x.user_id AND u.state = 'active'
     ORDER BY x.rule_id, u.id`);
  for (const r of eligible.rows)
    push(out.eligible, Number(r.rule_id), { id: Number(r.id), username: r.username, name: r.name, state: r.state, avatarUrl: r.avatar_url, email: r.email });
  return out;
}

/** Loads the details of project `rules` (all of one project) in four statements, whatever their number. */
export async function withDetails(db: Executor, actor: Actor | null, projectId: number, rules: ApprovalProjectRule[]): Promise<RuleDetails[]> {
  if (rules.length === 0) return [];
  const ids = rules.map((r) => r.id);
  const links = await loadLinks(db, actor, PROJECT_LINKS, ids);
  const branchRows = await db.select().from(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ids));
  const protections = branchRows.length ? await listProtections(db, projectId) : [];
  return rules.map((rule) => ({
    id: rule.id,
    name: rule.name,
    approvalsRequired: rule.approvalsRequired,
    ruleType: rule.ruleType,
    updatedAt: rule.updatedAt,
    users: links.users.get(rule.id) ?? [],
    groups: (links.groups.get(rule.id) ?? []).filter((g) => g.visible).map((g) => g.group),
    hiddenGroupIds: (links.groups.get(rule.id) ?? []).filter((g) => !g.visible).map((g) => g.group.id),
    protectedBranches: protections.filter((p) => branchRows.some((b) => b.ruleId === rule.id && b.protectedBranchId === p.id)),
    eligibleApprovers: links.eligible.get(rule.id) ?? [],
    sourceRule: null,
    overridden: false,
  }));
}

/**
 * Loads the details of merge request `rules` (all of one merge request) in a fixed number of
 * statements, with their source project rules to tell whether each was overridden
 * (ApprovalMergeRequestRule#overridden?: name, approvals, users or groups differ from the source).
 */
export async function withMergeRequestRuleDetails(db: Executor, actor: Actor | null, projectId: number, rules: ApprovalMergeRequestRule[]): Promise<RuleDetails[]> {
  if (rules.length === 0) return [];
  const links = await loadLinks(db, actor, MR_LINKS, rules.map((r) => r.id));
  const sourceIds = [...new Set(rules.map((r) => r.approvalProjectRuleId).filter((x): x is number => x !== null))];
  const sources = sourceIds.length
    ? await db.select().from(approvalProjectRules).where(and(eq(approvalProjectRules.projectId, projectId), inArray(approvalProjectRules.id, sourceIds)))
    : [];
  const sourceLinks = await loadLinks(db, actor, PROJECT_LINKS, sources.map((s) => s.id));
  const sameIds = (a: { id: number }[], b: { id: number }[]) => a.map((x) => x.id).sort().join() === b.map((x) => x.id).sort().join();
  return rules.map((rule) => {
    const allGroups = links.groups.get(rule.id) ?? [];
    const users = links.users.get(rule.id) ?? [];
    const source = sources.find((s) => s.id === rule.approvalProjectRuleId) ?? null;
    const overridden =
      !!source &&
      (source.name !== rule.name ||
        source.approvalsRequired !== rule.approvalsRequired ||
        !sameIds(sourceLinks.users.get(source.id) ?? [], users) ||
        !sameIds((sourceLinks.groups.get(source.id) ?? []).map((g) => g.group), allGroups.map((g) => g.group)));
    return {
      id: rule.id,
      name: rule.name,
      approvalsRequired: rule.approvalsRequired,
      ruleType: rule.ruleType,
      updatedAt: rule.updatedAt,
      users,
      groups: allGroups.filter((g) => g.visible).map((g) => g.group),
      hiddenGroupIds: allGroups.filter((g) => !g.visible).map((g) => g.group.id),
      protectedBranches: [],
      eligibleApprovers: links.eligible.get(rule.id) ?? [],
      sourceRule: source ? { id: source.id, approvalsRequired: source.approvalsRequired } : null,
      overridden,
    };
  });
}

type ApprovedMergeRequest = { id: number; state: string; sourceProjectId: number; sourceBranch: string };

/**
 * The approvals given on a merge request, oldest first, with their users. With `resetOnPush`
 * (the project's `reset_approvals_on_push`) an open merge request first loses, in the same statement,
 * the approvals given before the newest push to its source branch (MergeRequests::RefreshService's
 * ResetApprovalsService, applied when the approvals are next read rather than inside each push).
 */
export async function listApprovals(db: Executor, mr: ApprovedMergeRequest, opts: { resetOnPush: boolean }): Promise<Approval[]> {
  const reset = opts.resetOnPush && mr.state === "opened";
  const result = await db.execute<{ user_id: number; created_at: string; id: number; username: string; name: string; state: string; avatar_url: string | null; email: string }>(sql`
    WITH stale AS (
      DELETE FROM approvals a
       WHERE ${reset} AND a.merge_request_id = ${mr.id}
         AND EXISTS (SELECT 1 FROM push_events e WHERE e.project_id = ${mr.sourceProjectId}
                        AND e.ref = ${`refs/heads/${mr.sourceBranch}`} AND e.id > a.source_push_event_id)
      RETURNING a.id)
    SELECT a.user_id, a.created_at, u.id, u.username, u.name, u.state, u.avatar_url, u.email
      FROM approvals a JOIN users u ON u.id = a.user_id
     WHERE a.merge_request_id = ${mr.id} AND a.id NOT IN (SELECT id FROM stale)
     ORDER BY a.id`);
  return result.rows.map((r) => ({
    userId: Number(r.user_id),
    createdAt: new Date(r.created_at),
    user: { id: Number(r.id), username: r.username, name: r.name, state: r.state, avatarUrl: r.avatar_url, email: r.email },
  }));
}

/**
 * MergeRequest#committers: the users whose primary or commit email is the committer email of one of
 * the merge request's commits (target..source, merge commits left out as CommitCollection#committers
 * does). Empty when a branch is missing.
 */
export async function committerIds(
  db: Executor,
  project: { id: number; poolId: number | null; defaultBranch: string | null },
  mr: { sourceProjectId: number; sourceBranch: string; targetBranch: string },
): Promise<number[]> {
  const heads = await db.execute<{ project_id: number; name: string; target: string }>(sql`
    SELECT project_id, name, target FROM git_refs
     WHERE (project_id = ${mr.sourceProjectId} AND name = ${`refs/heads/${mr.sourceBranch}`})
        OR (project_id = ${project.id} AND name = ${`refs/heads/${mr.targetBranch}`})`);
  const source = heads.rows.find((r) => Number(r.project_id) === mr.sourceProjectId && r.name === `refs/heads/${mr.sourceBranch}`)?.target;
  const target = heads.rows.find((r) => Number(r.project_id) === project.id && r.name === `refs/heads/${mr.targetBranch}`)?.target;
  if (!source || !target) return [];
  const commits = await commitsBetween(db, repoOf(project), target.trim(), source.trim());
  const emails = [...new Set(commits.filter((c) => c.parents.length <= 1).map((c) => c.committerEmail.toLowerCase()))];
  if (emails.length === 0) return [];
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = ANY(${sql.param(emails)}::text[]) OR lower(${users.commitEmail}) = ANY(${sql.param(emails)}::text[])`);
  return rows.map((r) => r.id);
}
