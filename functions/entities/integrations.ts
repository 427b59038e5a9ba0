import * as z from "zod";
import type { Integration } from "../../db/schema";
import { isoTime } from "../kernel/present";
import { kindOf } from "./integration_kinds";

/** API::Entities::ProjectIntegrationBasic */
export const ProjectIntegrationBasic = z
  .object({
    id: z.int(),
    title: z.string(),
    slug: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    active: z.boolean(),
    commit_events: z.boolean(),
    push_events: z.boolean(),
    issues_events: z.boolean(),
    confidential_issues_events: z.boolean(),
    merge_requests_events: z.boolean(),
    tag_push_events: z.boolean(),
    note_events: z.boolean(),
    confidential_note_events: z.boolean(),
    pipeline_events: z.boolean(),
    wiki_page_events: z.boolean(),
    job_events: z.boolean(),
    comment_on_event_enabled: z.boolean(),
  })
  .meta({ id: "ProjectIntegrationBasic" });
export function projectIntegrationBasic(row: Integration): z.output<typeof ProjectIntegrationBasic> {
  return {
    id: row.id,
    title: kindOf(row.slug)?.title ?? row.slug,
    slug: row.slug,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    active: row.active,
    commit_events: row.commitEvents,
    push_events: row.pushEvents,
    issues_events: row.issuesEvents,
    confidential_issues_events: row.confidentialIssuesEvents,
    merge_requests_events: row.mergeRequestsEvents,
    tag_push_events: row.tagPushEvents,
    note_events: row.noteEvents,
    confidential_note_events: row.confidentialNoteEvents,
    pipeline_events: row.pipelineEvents,
    wiki_page_events: row.wikiPageEvents,
    job_events: row.jobEvents,
    comment_on_event_enabled: row.commentOnEventEnabled,
  };
}

/** API::Entities::ProjectIntegration: also `properties`, without secret fields. */
export const ProjectIntegration = ProjectIntegrationBasic.extend({ properties: z.record(z.string(), z.unknown()) }).meta({ id: "ProjectIntegration" });
export function projectIntegration(row: Integration): z.output<typeof ProjectIntegration> {
  const kind = kindOf(row.slug);
  const properties: Record<string, unknown> = {};
  for (const field of kind?.fields ?? []) if (!field.secret && row.properties[field.name] !== undefined) properties[field.name] = row.properties[field.name];
  return { ...projectIntegrationBasic(row), properties };
}
