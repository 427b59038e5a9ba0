import type { WebHook } from "../../db/schema";
import { isoTime } from "../kernel/present";

/**
 * API::Entities::Hook (lib/api/entities/hook.rb, 15.4): what every hook shows. `token` is write-only.
 * `alert_status` and `disabled_until` come from automatic disabling, which Edgeforge does not do: a hook
 * is always `executable`.
 */
export function hook(row: WebHook) {
  return {
    id: row.id,
    url: row.url,
    created_at: isoTime(row.createdAt),
    push_events: row.pushEvents,
    tag_push_events: row.tagPushEvents,
    merge_requests_events: row.mergeRequestsEvents,
    repository_update_events: row.repositoryUpdateEvents,
    enable_ssl_verification: row.enableSslVerification,
    alert_status: "executable",
    disabled_until: null,
  };
}

/** The flags ProjectHook and GroupHook both expose first, in their order. */
function issuableHookEvents(row: WebHook) {
  return {
    issues_events: row.issuesEvents,
    confidential_issues_events: row.confidentialIssuesEvents,
    note_events: row.noteEvents,
    confidential_note_events: row.confidentialNoteEvents,
    pipeline_events: row.pipelineEvents,
    wiki_page_events: row.wikiPageEvents,
  };
}

/** API::Entities::ProjectHook */
export function projectHook(row: WebHook) {
  return {
    ...hook(row),
    project_id: row.projectId,
    ...issuableHookEvents(row),
    deployment_events: row.deploymentEvents,
    job_events: row.jobEvents,
    releases_events: row.releasesEvents,
    push_events_branch_filter: row.pushEventsBranchFilter,
  };
}

/** EE::API::Entities::GroupHook (15.4) */
export function groupHook(row: WebHook) {
  return {
    ...hook(row),
    group_id: row.groupId,
    ...issuableHookEvents(row),
    job_events: row.jobEvents,
    deployment_events: row.deploymentEvents,
    releases_events: row.releasesEvents,
    subgroup_events: row.subgroupEvents,
    push_events_branch_filter: row.pushEventsBranchFilter,
  };
}
