import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Actor } from "../kernel/env";
import { canUpdateIssue, type IssueWithAssignees } from "../shared/issuables/policy";

/**
 * Metric image abilities of EE IssuablePolicy. The validations of MetricImageUploading, shared with
 * alert metric images, are in `shared/metric_images.ts`.
 */

/** `upload_issuable_metric_image` needs an incident (`metric_images_available?`): "Not allowed!" otherwise. */
export const isIncident = (issue: IssueWithAssignees) => issue.issueType === "incident";

/** `~is_project_member` prevents every metric image write, for administrators too. */
function isProjectMember(project: ProjectWithAccess): boolean {
  return project.accessLevel >= Access.GUEST;
}

/**
 * `update_issue` as IssuePolicy grants it: reporters and up, or the author or an assignee of an issue
 * that is not an incident.
 */
function canUpdate(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  return allowed(actor, "update_issue", project) || (!isIncident(issue) && canUpdateIssue(actor, project, issue));
}

/** `upload_issuable_metric_image`: `create_issue & update_issue`, members only. */
export function canUpload(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  return isProjectMember(project) && allowed(actor, "create_issue", project) && canUpdate(actor, project, issue);
}

/** `update_issuable_metric_image` / `destroy_issuable_metric_image`: the author, or `create_issue & update_issue`. */
export function canChange(actor: Actor, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  if (!isProjectMember(project)) return false;
  return issue.authorId === actor.user.id || (allowed(actor, "create_issue", project) && canUpdate(actor, project, issue));
}
