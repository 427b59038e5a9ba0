import { and, asc, desc, eq, inArray, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { awardEmoji, badges, ciBuilds, ciPipelines, ciStages, ciVariables, issueAssignees, issueLinks, issues, labelLinks, mergeRequestAssignees, mergeRequestReviewers, timelogs, labels, members, mergeRequests, milestones, notes, operationsFeatureFlags, operationsFeatureFlagScopes, operationsScopes, operationsStrategies, operationsUserLists, projects, projectTransferJobs, protectedBranchAccessLevels, protectedBranches, snippets, users, uploads, type ProjectTransferJob } from "../../db/schema";
import type { Executor } from "../kernel/db";
import type { ExportRelations } from "../entities/project_export";

/** The newest export job of a project, and whether an older one finished (for `regeneration_in_progress`). */
export async function exportJobs(db: Executor, projectId: number): Promise<ProjectTransferJob[]> {
  return db
    .select()
    .from(projectTransferJobs)
    .where(and(eq(projectTransferJobs.projectId, projectId), eq(projectTransferJobs.kind, "export")))
    .orderBy(desc(projectTransferJobs.id))
    .limit(20);
}

export async function createExportJob(
  db: Executor,
  job: { projectId: number; userId: number; description: string | null; uploadUrl: string | null; uploadMethod: string | null; correlationId: string },
): Promise<ProjectTransferJob> {
  const [row] = await db
    .insert(projectTransferJobs)
    .values({ kind: "export", status: "queued", ...job })
    .returning();
  return row;
}

export async function loadJob(db: Executor, id: number): Promise<ProjectTransferJob | null> {
  const [row] = await db.select().from(projectTransferJobs).where(eq(projectTransferJobs.id, id));
  return row ?? null;
}

export async function finishJob(db: Executor, id: number, r2Key: string, error: string | null) {
  await db
    .update(projectTransferJobs)
    .set({ status: "finished", r2Key, error, finishedAt: sql`now()`, leaseUntil: null, updatedAt: sql`now()` })
    .where(eq(projectTransferJobs.id, id));
}

export async function failJob(db: Executor, id: number, error: string) {
  await db
    .update(projectTransferJobs)
    .set({ status: "failed", error, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(projectTransferJobs.id, id), sql`${projectTransferJobs.status} <> 'finished'`));
}

/** Everything the archive holds, read in a fixed number of statements (no per-issue queries). */
export async function exportRelations(db: Executor, projectId: number): Promise<ExportRelations | null> {
  const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
  if (!project) return null;
  const [labelRows, milestoneRows, issueRows, mrRows, memberRows, badgeRows] = await Promise.all([
    db.select().from(labels).where(eq(labels.projectId, projectId)).orderBy(asc(labels.id)),
    db.select().from(milestones).where(eq(milestones.projectId, projectId)).orderBy(asc(milestones.id)),
    db.select().from(issues).where(eq(issues.projectId, projectId)).orderBy(asc(issues.id)),
    db.select().from(mergeRequests).where(eq(mergeRequests.projectId, projectId)).orderBy(asc(mergeRequests.id)),
    db
      .select({ member: members, user: { id: users.id, username: users.username, publicEmail: users.publicEmail } })
      .from(members)
      .innerJoin(users, eq(users.id, members.userId))
      .where(and(eq(members.sourceType, "Project"), eq(members.sourceId, projectId)))
      .orderBy(asc(members.id)),
    db.select().from(badges).where(eq(badges.projectId, projectId)).orderBy(asc(badges.id)),
  ]);
  const noteRows = await db
    .select()
    .from(notes)
    .where(and(eq(notes.projectId, projectId), inArray(notes.noteableType, ["Issue", "MergeRequest", "Snippet"])))
    .orderBy(asc(notes.id));
  // Project snippets (their notes are above), pipelines with stages and jobs, protected branches with
  // their access levels: one statement each, joined to the project.
  const [snippetRows, pipelineRows, stageRows, buildRows, protectedBranchRows, accessLevelRows] = await Promise.all([
    db.select().from(snippets).where(eq(snippets.projectId, projectId)).orderBy(asc(snippets.id)),
    db.select().from(ciPipelines).where(eq(ciPipelines.projectId, projectId)).orderBy(asc(ciPipelines.id)),
    db
      .select({ stage: ciStages })
      .from(ciStages)
      .innerJoin(ciPipelines, eq(ciPipelines.id, ciStages.pipelineId))
      .where(eq(ciPipelines.projectId, projectId))
      .orderBy(asc(ciStages.id))
      .then((rows) => rows.map((r) => r.stage)),
    db.select().from(ciBuilds).where(eq(ciBuilds.projectId, projectId)).orderBy(asc(ciBuilds.id)),
    db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)),
    db
      .select({ level: protectedBranchAccessLevels })
      .from(protectedBranchAccessLevels)
      .innerJoin(protectedBranches, eq(protectedBranches.id, protectedBranchAccessLevels.protectedBranchId))
      .where(eq(protectedBranches.projectId, projectId))
      .orderBy(asc(protectedBranchAccessLevels.id))
      .then((rows) => rows.map((r) => r.level)),
  ]);
  const snippetIds = snippetRows.map((r) => r.id);
  const issueIds = issueRows.map((r) => r.id);
  const mrIds = mrRows.map((r) => r.id);
  const [labelLinkRows, awardRows, issueAssigneeRows, mrAssigneeRows, mrReviewerRows, timelogRows] = await Promise.all([
    issueIds.length + mrIds.length === 0
      ? []
      : db
          .select({ targetType: labelLinks.targetType, targetId: labelLinks.targetId, labelId: labelLinks.labelId })
          .from(labelLinks)
          .where(
            or(
              issueIds.length ? and(eq(labelLinks.targetType, "Issue"), inArray(labelLinks.targetId, issueIds)) : sql`false`,
              mrIds.length ? and(eq(labelLinks.targetType, "MergeRequest"), inArray(labelLinks.targetId, mrIds)) : sql`false`,
            ),
          ),
    issueIds.length + snippetIds.length === 0
      ? []
      : db
          .select()
          .from(awardEmoji)
          .where(
            or(
              issueIds.length ? and(eq(awardEmoji.awardableType, "Issue"), inArray(awardEmoji.awardableId, issueIds)) : sql`false`,
              snippetIds.length ? and(eq(awardEmoji.awardableType, "Snippet"), inArray(awardEmoji.awardableId, snippetIds)) : sql`false`,
            ),
          )
          .orderBy(asc(awardEmoji.id)),
    issueIds.length === 0 ? [] : db.select().from(issueAssignees).where(inArray(issueAssignees.issueId, issueIds)),
    mrIds.length === 0 ? [] : db.select().from(mergeRequestAssignees).where(inArray(mergeRequestAssignees.mergeRequestId, mrIds)),
    mrIds.length === 0 ? [] : db.select().from(mergeRequestReviewers).where(inArray(mergeRequestReviewers.mergeRequestId, mrIds)),
    issueIds.length + mrIds.length === 0
      ? []
      : db
          .select()
          .from(timelogs)
          .where(or(issueIds.length ? inArray(timelogs.issueId, issueIds) : sql`false`, mrIds.length ? inArray(timelogs.mergeRequestId, mrIds) : sql`false`))
          .orderBy(asc(timelogs.id)),
  ]);
  // Edgeforge's extensions of the archive (see exportTree): issue links between two issues of this
  // project, feature flags with their strategies, strategy scopes and legacy scopes, user lists, CI/CD
  // variables. One statement each, joined to the project.
  const targetIssue = alias(issues, "target_issue");
  const [issueLinkRows, userListRows, flagRows, strategyRows, strategyScopeRows, legacyScopeRows, variableRows] = await Promise.all([
    db
      .select({ sourceIid: issues.iid, targetIid: targetIssue.iid, linkType: issueLinks.linkType, createdAt: issueLinks.createdAt, updatedAt: issueLinks.updatedAt })
      .from(issueLinks)
      .innerJoin(issues, eq(issues.id, issueLinks.sourceId))
      .innerJoin(targetIssue, eq(targetIssue.id, issueLinks.targetId))
      .where(and(eq(issues.projectId, projectId), eq(targetIssue.projectId, projectId)))
      .orderBy(asc(issueLinks.id)),
    db.select().from(operationsUserLists).where(eq(operationsUserLists.projectId, projectId)).orderBy(asc(operationsUserLists.iid)),
    db.select().from(operationsFeatureFlags).where(eq(operationsFeatureFlags.projectId, projectId)).orderBy(asc(operationsFeatureFlags.iid)),
    db
      .select({ strategy: operationsStrategies, userListIid: operationsUserLists.iid })
      .from(operationsStrategies)
      .innerJoin(operationsFeatureFlags, eq(operationsFeatureFlags.id, operationsStrategies.featureFlagId))
      .leftJoin(operationsUserLists, eq(operationsUserLists.id, operationsStrategies.userListId))
      .where(eq(operationsFeatureFlags.projectId, projectId))
      .orderBy(asc(operationsStrategies.id)),
    db
      .select({ scope: operationsScopes })
      .from(operationsScopes)
      .innerJoin(operationsStrategies, eq(operationsStrategies.id, operationsScopes.strategyId))
      .innerJoin(operationsFeatureFlags, eq(operationsFeatureFlags.id, operationsStrategies.featureFlagId))
      .where(eq(operationsFeatureFlags.projectId, projectId))
      .orderBy(asc(operationsScopes.id))
      .then((rows) => rows.map((r) => r.scope)),
    db
      .select({ scope: operationsFeatureFlagScopes })
      .from(operationsFeatureFlagScopes)
      .innerJoin(operationsFeatureFlags, eq(operationsFeatureFlags.id, operationsFeatureFlagScopes.featureFlagId))
      .where(eq(operationsFeatureFlags.projectId, projectId))
      .orderBy(asc(operationsFeatureFlagScopes.id))
      .then((rows) => rows.map((r) => r.scope)),
    db.select().from(ciVariables).where(eq(ciVariables.projectId, projectId)).orderBy(asc(ciVariables.id)),
  ]);
  return {
    issueLinkRows, userListRows, flagRows, strategyRows, strategyScopeRows, legacyScopeRows, variableRows,
    project, labelRows, milestoneRows, issueRows, mrRows, memberRows, badgeRows, noteRows, labelLinkRows, awardRows, issueAssigneeRows, mrAssigneeRows, mrReviewerRows, timelogRows,
    snippetRows, pipelineRows, stageRows, buildRows, protectedBranchRows, accessLevelRows,
  };
}

/** The project's attachments (FileUploader rows), for `uploads/<secret>/<filename>` in the archive. */
export async function projectUploads(db: Executor, projectId: number) {
  return db
    .select({ path: uploads.path, size: uploads.size, r2Key: uploads.r2Key })
    .from(uploads)
    .where(and(eq(uploads.modelType, "Project"), eq(uploads.modelId, projectId)))
    .orderBy(asc(uploads.id));
}
