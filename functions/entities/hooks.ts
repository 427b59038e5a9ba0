import * as z from "zod";
import type { WebHook } from "../../db/schema";
import { isoTime } from "../kernel/present";

/**
 * API::Entities::Hook (lib/api/entities/hook.rb, 15.4): what every hook shows. `token` is write-only.
 * `alert_status` and `disabled_until` come from automatic disabling, which Edgeforge does not do: a hook
 * is always `executable`.
 */
export const Hook = z
  .object({
    id: z.int(),
    url: z.string(),
    created_at: z.string().nullable(),
    push_events: z.boolean(),
    tag_push_events: z.boolean(),
    merge_requests_events: z.boolean(),
    repository_update_events: z.boolean(),
    enable_ssl_verification: z.boolean(),
    alert_status: z.string(),
    disabled_until: z.string().nullable(),
  })
  .meta({ id: "Hook" });
export function hook(row: WebHook): z.output<typeof Hook> {
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
const IssuableHookEvents = z.object({
  issues_events: z.boolean(),
  confidential_issues_events: z.boolean(),
  note_events: z.boolean(),
  confidential_note_events: z.boolean(),
  pipeline_events: z.boolean(),
  wiki_page_events: z.boolean(),
});
function issuableHookEvents(row: WebHook): z.output<typeof IssuableHookEvents> {
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
export const ProjectHook = Hook.extend({
  project_id: z.int().nullable(),
  ...IssuableHookEvents.shape,
  deployment_events: z.boolean(),
  job_events: z.boolean(),
  releases_events: z.boolean(),
  push_events_branch_filter: z.string().nullable(),
}).meta({ id: "ProjectHook" });
export function projectHook(row: WebHook): z.output<typeof ProjectHook> {
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
export const GroupHook = Hook.extend({
  group_id: z.int().nullable(),
  ...IssuableHookEvents.shape,
  job_events: z.boolean(),
  deployment_events: z.boolean(),
  releases_events: z.boolean(),
  subgroup_events: z.boolean(),
  push_events_branch_filter: z.string().nullable(),
}).meta({ id: "GroupHook" });
export function groupHook(row: WebHook): z.output<typeof GroupHook> {
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
