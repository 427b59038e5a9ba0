// Issues and collaboration: issues, labels, milestones, merge requests, notes, events,
// award emoji, time tracking, links, to-dos, snippets, epics. GitLab's table names where they help.
import { boolean, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

/** Gapless per-project (or per-group) iids, bumped with `UPDATE … RETURNING` in the creating transaction. */
export const internalIds = pgTable(
  "internal_ids",
  {
    id: id(),
    usage: text().notNull(), // "issues" | "merge_requests" | "milestones" | "epics"
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    namespaceId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    lastValue: integer().notNull().default(0),
  },
  (t) => [
    uniqueIndex("index_internal_ids_on_usage_and_project_id").on(t.usage, t.projectId).where(sql`project_id IS NOT NULL`),
    uniqueIndex("index_internal_ids_on_usage_and_namespace_id").on(t.usage, t.namespaceId).where(sql`namespace_id IS NOT NULL`),
  ],
);

/** Project labels (group labels later: `group_id`). */
export const labels = pgTable(
  "labels",
  {
    id: id(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    title: text().notNull(),
    color: text().notNull(),
    description: text(),
    priority: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_labels_on_project_id_and_title").on(t.projectId, t.title).where(sql`project_id IS NOT NULL`),
    uniqueIndex("index_labels_on_group_id_and_title").on(t.groupId, t.title).where(sql`group_id IS NOT NULL`),
  ],
);

export const milestones = pgTable(
  "milestones",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    title: text().notNull(),
    description: text(),
    state: text().notNull().default("active"), // active | closed
    dueDate: date({ mode: "string" }),
    startDate: date({ mode: "string" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_milestones_on_project_id_and_iid").on(t.projectId, t.iid).where(sql`project_id IS NOT NULL`),
    uniqueIndex("index_milestones_on_project_id_and_title").on(t.projectId, t.title).where(sql`project_id IS NOT NULL`),
    uniqueIndex("index_milestones_on_group_id_and_iid").on(t.groupId, t.iid).where(sql`group_id IS NOT NULL`),
    uniqueIndex("index_milestones_on_group_id_and_title").on(t.groupId, t.title).where(sql`group_id IS NOT NULL`),
  ],
);

export const issues = pgTable(
  "issues",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    title: text().notNull(),
    /**
     * `lower(title)`, kept by PostgreSQL (migration 0058), with the search's trigram index
     * (`index_issues_on_title_lower_trigram`): in a UTF-8 database `title ILIKE p` is by definition
     * `lower(title) LIKE lower(p)`, and matching the stored lower-case copy with LIKE saves lower-casing
     * each candidate row again (kernel/fuzzy_search.ts `fuzzySearchLowered`). Not a GitLab column.
     */
    titleLower: text().generatedAlwaysAs(sql`lower(title)`),
    description: text(),
    state: text().notNull().default("opened"), // opened | closed
    /** "issue" | "incident" | "test_case" | "requirement" | "task" (work item types). */
    issueType: text().notNull().default("issue"),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    closedById: integer().references(() => users.id, { onDelete: "set null" }),
    closedAt: timestamptz(),
    milestoneId: integer().references(() => milestones.id, { onDelete: "set null" }),
    confidential: boolean().notNull().default(false),
    discussionLocked: boolean(),
    dueDate: date({ mode: "string" }),
    weight: integer(),
    iterationId: integer(),
    healthStatus: text(),
    relativePosition: integer(),
    movedToId: integer(),
    duplicatedToId: integer(),
    timeEstimate: integer().notNull().default(0),
    /** Sum of timelogs, kept with each timelog write (time_stats without a query). */
    totalTimeSpent: integer().notNull().default(0),
    upvotes: integer().notNull().default(0),
    downvotes: integer().notNull().default(0),
    userNotesCount: integer().notNull().default(0),
    /**
     * The ids of the issue's labels, kept by a trigger on `label_links` (migration 0005), so that the
     * `labels=a,b` filter and its capped count are GIN index scans rather than a join per label.
     */
    labelIds: integer().array().notNull().default(sql`'{}'::integer[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_issues_on_project_id_and_iid").on(t.projectId, t.iid),
    index("index_issues_on_label_ids").using("gin", t.labelIds),
    index("index_issues_on_project_id_and_state_and_created_at").on(t.projectId, t.state, t.createdAt, t.id),
    index("index_issues_on_project_id_and_updated_at").on(t.projectId, t.updatedAt, t.id),
    // The default project list (every state, newest first), as GitLab's idx_issues_on_project_id_and_created_at_and_id_and_state_id;
    // state and issue_type trail the sort key so that the list's capped count is an index-only scan.
    index("index_issues_on_project_id_and_created_at_and_id_and_state").on(t.projectId, t.createdAt, t.id, t.state, t.issueType),
    index("index_issues_on_author_id_and_created_at").on(t.authorId, t.createdAt, t.id),
    index("index_issues_on_milestone_id").on(t.milestoneId),
    // INCLUDE (project_id, issue_type, label_ids), added by migrations/0014 (Drizzle cannot say INCLUDE):
    // the labelled instance-wide list's page and capped count are index-only scans.
    index("index_issues_on_state_and_created_at").on(t.state, t.createdAt, t.id),
    index("index_issues_on_project_id_and_due_date").on(t.projectId, t.dueDate, t.id),
  ],
);

/**
 * How many issues each project has per state, type, confidentiality and label set (`label_ids` sorted),
 * kept by statement triggers on `issues` (migration 0040): the one writer, so every statement that
 * writes issues (API, imports, moves, label changes through `label_links`, cascades) keeps it exact in
 * its own transaction. Lists read it for a lower bound of their capped count (kernel/pagination.ts), so
 * a count known to exceed 10,000 is not counted row by row. No foreign key: a project's rows go with
 * its last issue (rows at 0 are deleted), and a cascade from `projects` must not race the trigger.
 * Not a GitLab table (GitLab counts with `LIMIT 10001`).
 */
export const issueCounts = pgTable(
  "issue_counts",
  {
    projectId: integer().notNull(),
    state: text().notNull(),
    issueType: text().notNull(),
    confidential: boolean().notNull(),
    labelIds: integer().array().notNull(),
    count: integer().notNull(),
  },
  (t) => [primaryKey({ name: "issue_counts_pkey", columns: [t.projectId, t.state, t.issueType, t.confidential, t.labelIds] })],
);

export const issueAssignees = pgTable(
  "issue_assignees",
  {
    issueId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.issueId, t.userId] }), index("index_issue_assignees_on_user_id").on(t.userId, t.issueId)],
);

/** Labels applied to issues and merge requests (GitLab's polymorphic label_links). */
export const labelLinks = pgTable(
  "label_links",
  {
    id: id(),
    labelId: integer().notNull().references(() => labels.id, { onDelete: "cascade" }),
    targetType: text().notNull(), // "Issue" | "MergeRequest"
    targetId: integer().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_label_links_on_target_and_label").on(t.targetType, t.targetId, t.labelId),
    index("index_label_links_on_label_id_and_target").on(t.labelId, t.targetType, t.targetId),
  ],
);

export const mergeRequests = pgTable(
  "merge_requests",
  {
    id: id(),
    iid: integer().notNull(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    sourceProjectId: integer().notNull(),
    title: text().notNull(),
    description: text(),
    state: text().notNull().default("opened"), // opened | closed | merged | locked
    sourceBranch: text().notNull(),
    targetBranch: text().notNull(),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    closedById: integer().references(() => users.id, { onDelete: "set null" }),
    closedAt: timestamptz(),
    mergedById: integer().references(() => users.id, { onDelete: "set null" }),
    mergedAt: timestamptz(),
    milestoneId: integer().references(() => milestones.id, { onDelete: "set null" }),
    draft: boolean().notNull().default(false),
    discussionLocked: boolean(),
    squash: boolean().notNull().default(false),
    forceRemoveSourceBranch: boolean(),
    /**
     * `allow_collaboration` (GitLab's column `allow_maintainer_to_push`): members of the target who may
     * merge into the target branch may push to the fork's source branch. Stored only when the author
     * could allow it (`can_allow_collaboration?`).
     */
    allowCollaboration: boolean().notNull().default(false),
    mergeWhenPipelineSucceeds: boolean().notNull().default(false),
    mergeStatus: text().notNull().default("unchecked"),
    sha: text(),
    mergeCommitSha: text(),
    squashCommitSha: text(),
    /** `merge_params['should_remove_source_branch']`, set when merging. */
    shouldRemoveSourceBranch: boolean(),
    mergeError: text(),
    /** The source and target heads `merge_status` was computed for (a head moved: check again). */
    mergeCheckSourceSha: text(),
    mergeCheckTargetSha: text(),
    /** Who asked for the merge when the pipeline succeeds (`merge_user`). */
    mergeUserId: integer().references(() => users.id, { onDelete: "set null" }),
    /** EE `approvals_before_merge` of the merge request (null: the project's). */
    approvalsBeforeMerge: integer(),
    timeEstimate: integer().notNull().default(0),
    totalTimeSpent: integer().notNull().default(0),
    upvotes: integer().notNull().default(0),
    downvotes: integer().notNull().default(0),
    userNotesCount: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_merge_requests_on_project_id_and_iid").on(t.projectId, t.iid),
    index("index_merge_requests_on_project_id_and_state_and_created_at").on(t.projectId, t.state, t.createdAt, t.id),
    index("index_merge_requests_on_author_id").on(t.authorId, t.id),
    // MergeRequest#validate_branches: one open merge request per target project, source project,
    // source branch and target branch, held by the database so that concurrent creates cannot race.
    uniqueIndex("index_merge_requests_on_open_branches")
      .on(t.projectId, t.sourceProjectId, t.sourceBranch, t.targetBranch)
      .where(sql`state = 'opened'`),
  ],
);

export const mergeRequestAssignees = pgTable(
  "merge_request_assignees",
  {
    mergeRequestId: integer().notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.mergeRequestId, t.userId] }), index("index_mr_assignees_on_user_id").on(t.userId)],
);

export const mergeRequestReviewers = pgTable(
  "merge_request_reviewers",
  {
    mergeRequestId: integer().notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.mergeRequestId, t.userId] })],
);

/** Merge requests whose description closes an issue on merge (`Closes #1`), GitLab's merge_requests_closing_issues. */
export const mergeRequestsClosingIssues = pgTable(
  "merge_requests_closing_issues",
  {
    id: id(),
    mergeRequestId: integer().notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    issueId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_mr_closing_issues_on_mr_and_issue").on(t.mergeRequestId, t.issueId),
    index("index_mr_closing_issues_on_issue_id").on(t.issueId),
  ],
);

/**
 * One row per source-branch head a merge request has seen (GitLab's merge_request_diffs, the
 * `versions` API): the head, the merge base with the target and the target head at that time.
 */
export const mergeRequestDiffs = pgTable(
  "merge_request_diffs",
  {
    id: id(),
    mergeRequestId: integer().notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    headCommitSha: text().notNull(),
    baseCommitSha: text(),
    startCommitSha: text(),
    state: text().notNull().default("collected"),
    /** Changed files between base and head (`real_size`, a string in the API). */
    filesCount: integer().notNull().default(0),
    commitsCount: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    // Differs from GitLab: a head seen before (a force-push back) does not make a second version;
    // the index also makes concurrent refreshes write one row.
    uniqueIndex("index_merge_request_diffs_on_mr_id_and_head").on(t.mergeRequestId, t.headCommitSha),
  ],
);

/** Cross-references from a merge request to issues it mentions (related_merge_requests). */
export const issueMergeRequestReferences = pgTable(
  "issue_merge_request_references",
  {
    issueId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    mergeRequestId: integer().notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issueId, t.mergeRequestId] }), index("index_issue_mr_refs_on_mr").on(t.mergeRequestId)],
);

/** Minimal project snippets (notes and discussions need a target). */
export const snippets = pgTable(
  "snippets",
  {
    id: id(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    title: text().notNull(),
    description: text(),
    fileName: text(),
    content: text().notNull().default(""),
    visibilityLevel: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_snippets_on_project_id_and_id").on(t.projectId, t.id)],
);

/**
 * The files of a snippet. GitLab keeps them in a git repository per snippet; here they are rows, one per
 * path, at the snippet's one ref (see functions/snippets/). A snippet without rows is GitLab's snippet
 * without a repository: `files` is empty and `raw` answers the `content` column.
 */
export const snippetFiles = pgTable(
  "snippet_files",
  {
    snippetId: integer().notNull().references(() => snippets.id, { onDelete: "cascade" }),
    path: text().notNull(),
    content: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.snippetId, t.path] })],
);

/**
 * Explicit subscriptions to issues, merge requests and labels (GitLab's `subscriptions`): a row with
 * `subscribed = false` is an explicit unsubscription, which wins over being a participant.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    subscribableType: text().notNull(), // "Issue" | "MergeRequest" | "Label"
    subscribableId: integer().notNull(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    subscribed: boolean().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_subscriptions_on_subscribable_and_user_id_and_project_id").on(t.subscribableId, t.subscribableType, t.userId, t.projectId),
    index("index_subscriptions_on_user").on(t.userId),
  ],
);

/**
 * Group epics. `startDate` and `dueDate` hold GitLab's `start_date_fixed` and `due_date_fixed`; they count
 * as the epic's dates when the matching `*_is_fixed` flag is set. `parentId` makes the epic tree (at most
 * 7 levels, Epic::MAX_HIERARCHY_DEPTH); `relativePosition` orders siblings.
 */
export const epics = pgTable(
  "epics",
  {
    id: id(),
    iid: integer().notNull(),
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    parentId: integer(),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    title: text().notNull(),
    description: text(),
    state: text().notNull().default("opened"),
    confidential: boolean().notNull().default(false),
    startDate: date({ mode: "string" }),
    dueDate: date({ mode: "string" }),
    relativePosition: integer(),
    startDateIsFixed: boolean().notNull().default(false),
    dueDateIsFixed: boolean().notNull().default(false),
    closedAt: timestamptz(),
    closedById: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_epics_on_group_id_and_iid").on(t.groupId, t.iid),
    index("index_epics_on_parent_id").on(t.parentId),
  ],
);

/** An issue's epic (GitLab's epic_issues): one epic per issue. */
export const epicIssues = pgTable(
  "epic_issues",
  {
    id: id(),
    epicId: integer().notNull().references(() => epics.id, { onDelete: "cascade" }),
    issueId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    relativePosition: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_epic_issues_on_issue_id").on(t.issueId), index("index_epic_issues_on_epic_id").on(t.epicId)],
);

/** Comments and system notes on issues, merge requests, snippets and epics. */
export const notes = pgTable(
  "notes",
  {
    id: id(),
    noteableType: text().notNull(), // "Issue" | "MergeRequest" | "Snippet" | "Epic" | "Commit"
    /** Null for commit notes, which name their commit by `commit_id` (as GitLab stores them). */
    noteableId: integer(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    note: text().notNull(),
    system: boolean().notNull().default(false),
    confidential: boolean().notNull().default(false),
    /** "DiscussionNote" for thread notes, null for a single comment (GitLab's STI `type`). */
    type: text(),
    /** 40 lowercase hex characters. */
    discussionId: text().notNull(),
    resolvable: boolean().notNull().default(false),
    resolvedAt: timestamptz(),
    resolvedById: integer(),
    updatedById: integer(),
    /** The commit of a commit note (`noteable_type` "Commit"). */
    commitId: text(),
    /** A commit comment on a diff line (LegacyDiffNote): `<sha1 of the path>_<old line>_<new line>`. */
    lineCode: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_notes_on_commit_id").on(t.projectId, t.commitId).where(sql`${t.commitId} IS NOT NULL`),
    index("index_notes_on_noteable_and_created_at").on(t.noteableType, t.noteableId, t.createdAt, t.id),
    index("index_notes_on_discussion_id").on(t.discussionId),
    index("index_notes_on_author_id").on(t.authorId),
  ],
);

/** Award emoji on issues, merge requests, notes and snippets. */
export const awardEmoji = pgTable(
  "award_emoji",
  {
    id: id(),
    name: text().notNull(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    awardableType: text().notNull(), // "Issue" | "MergeRequest" | "Note" | "Snippet"
    awardableId: integer().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_award_emoji_on_awardable_user_name").on(t.awardableType, t.awardableId, t.userId, t.name),
    index("index_award_emoji_on_user_id_and_name").on(t.userId, t.name),
  ],
);

export const timelogs = pgTable(
  "timelogs",
  {
    id: id(),
    timeSpent: integer().notNull(),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    issueId: integer().references(() => issues.id, { onDelete: "cascade" }),
    mergeRequestId: integer().references(() => mergeRequests.id, { onDelete: "cascade" }),
    spentAt: timestamptz(),
    summary: text(),
    createdAt: createdAt(),
  },
  (t) => [index("index_timelogs_on_issue_id").on(t.issueId), index("index_timelogs_on_mr_id").on(t.mergeRequestId)],
);

export const userAgentDetails = pgTable(
  "user_agent_details",
  {
    id: id(),
    subjectType: text().notNull(),
    subjectId: integer().notNull(),
    userAgent: text().notNull(),
    ipAddress: text().notNull(),
    submitted: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("index_user_agent_details_on_subject").on(t.subjectType, t.subjectId)],
);

/** Two-way issue relations: one row per direction pair as GitLab stores it (source → target, type). */
export const issueLinks = pgTable(
  "issue_links",
  {
    id: id(),
    sourceId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    targetId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    linkType: text().notNull().default("relates_to"), // relates_to | blocks
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_issue_links_on_source_id_and_target_id").on(t.sourceId, t.targetId),
    index("index_issue_links_on_target_id").on(t.targetId),
  ],
);

export const todos = pgTable(
  "todos",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    targetType: text().notNull(), // "Issue" | "MergeRequest" | …
    targetId: integer().notNull(),
    noteId: integer().references(() => notes.id, { onDelete: "cascade" }),
    /** GitLab's Todo action numbers: 1 assigned, 2 mentioned, 3 build_failed, 4 marked, 5 approval_required, 6 unmergeable, 7 directly_addressed, 8 merge_train_removed. */
    action: integer().notNull(),
    state: text().notNull().default("pending"), // pending | done
    body: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_todos_on_user_id_and_state_and_id").on(t.userId, t.state, t.id),
    index("index_todos_on_target").on(t.targetType, t.targetId),
  ],
);

/**
 * Resource events (label, state, milestone changes), as GitLab records them instead of system notes.
 */
export const resourceLabelEvents = pgTable(
  "resource_label_events",
  {
    id: id(),
    action: text().notNull(), // add | remove
    issueId: integer().references(() => issues.id, { onDelete: "cascade" }),
    mergeRequestId: integer().references(() => mergeRequests.id, { onDelete: "cascade" }),
    epicId: integer().references(() => epics.id, { onDelete: "cascade" }),
    labelId: integer().references(() => labels.id, { onDelete: "set null" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("index_resource_label_events_on_issue_id").on(t.issueId), index("index_resource_label_events_on_mr_id").on(t.mergeRequestId)],
);

export const resourceStateEvents = pgTable(
  "resource_state_events",
  {
    id: id(),
    state: text().notNull(), // opened | closed | reopened | merged | locked
    issueId: integer().references(() => issues.id, { onDelete: "cascade" }),
    mergeRequestId: integer().references(() => mergeRequests.id, { onDelete: "cascade" }),
    /** Epics have state events too (GitLab 15.4: ee/app/models/ee/resource_state_event.rb). */
    epicId: integer().references(() => epics.id, { onDelete: "cascade" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    sourceCommit: text(),
    sourceMergeRequestId: integer(),
    createdAt: createdAt(),
  },
  (t) => [
    index("index_resource_state_events_on_issue_id").on(t.issueId),
    index("index_resource_state_events_on_mr_id").on(t.mergeRequestId),
    index("index_resource_state_events_on_epic_id").on(t.epicId),
  ],
);

export const resourceMilestoneEvents = pgTable(
  "resource_milestone_events",
  {
    id: id(),
    action: text().notNull(), // add | remove
    issueId: integer().references(() => issues.id, { onDelete: "cascade" }),
    mergeRequestId: integer().references(() => mergeRequests.id, { onDelete: "cascade" }),
    milestoneId: integer().references(() => milestones.id, { onDelete: "set null" }),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    state: text().notNull(), // the milestone's state at the time
    createdAt: createdAt(),
  },
  (t) => [index("index_resource_milestone_events_on_issue_id").on(t.issueId), index("index_resource_milestone_events_on_mr_id").on(t.mergeRequestId)],
);

/** Fixed-window counters for application rate limits, shared by every Worker instance. */
export const applicationRateLimits = pgTable(
  "application_rate_limits",
  {
    key: text().notNull(), // e.g. "issues_create:<user_id>"
    windowStart: timestamptz().notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/** Metric images of incident issues (bytes in R2). */
export const issuableMetricImages = pgTable(
  "issuable_metric_images",
  {
    id: id(),
    issueId: integer().notNull().references(() => issues.id, { onDelete: "cascade" }),
    fileName: text().notNull(),
    r2Key: text().notNull(),
    url: text(),
    urlText: text(),
    size: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_issuable_metric_images_on_issue_id").on(t.issueId)],
);

export type Issue = typeof issues.$inferSelect;
export type Label = typeof labels.$inferSelect;
export type Milestone = typeof milestones.$inferSelect;
export type MergeRequest = typeof mergeRequests.$inferSelect;
export type MergeRequestDiff = typeof mergeRequestDiffs.$inferSelect;
export type Note = typeof notes.$inferSelect;
export type AwardEmoji = typeof awardEmoji.$inferSelect;
export type Snippet = typeof snippets.$inferSelect;
export type SnippetFile = typeof snippetFiles.$inferSelect;
export type Subscription = typeof subscriptions.$inferSelect;
export type Epic = typeof epics.$inferSelect;
export type IssueLink = typeof issueLinks.$inferSelect;
export type Todo = typeof todos.$inferSelect;

/**
 * EE iterations (GitLab's `sprints` table): time boxes of a group. Deliberate differences from GitLab:
 * no cadences (`iterations_cadence_id`), the state is not stored but derived from the dates, and
 * `sequence` is computed when read (the position by start date inside the group).
 */
export const iterations = pgTable(
  "iterations",
  {
    id: id(),
    iid: integer().notNull(),
    groupId: integer()
      .notNull()
      .references(() => namespaces.id, { onDelete: "cascade" }),
    title: text(),
    description: text(),
    startDate: date({ mode: "string" }).notNull(),
    dueDate: date({ mode: "string" }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_iterations_on_group_id_and_iid").on(t.groupId, t.iid),
    uniqueIndex("index_iterations_on_group_id_and_title").on(t.groupId, t.title),
    index("index_iterations_on_group_id_and_start_date").on(t.groupId, t.startDate),
  ],
);

export type Iteration = typeof iterations.$inferSelect;
