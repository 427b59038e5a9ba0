import * as z from "zod";
import type { importFailures, Namespace, Project, ProjectTransferJob } from "../../db/schema";
import { type PresentContext, isoTime } from "../kernel/present";
import { ProjectIdentity, projectIdentity } from "./projects";

/** One relation that failed to import. */
export type ImportFailure = typeof importFailures.$inferSelect;

/** Project#import_status: none (never imported), scheduled, started, finished, failed. */
export function importStatus(job: ProjectTransferJob | null): string {
  return job ? job.status : "none";
}

/** API::Entities::ProjectImportFailedRelation. */
const ProjectImportFailedRelation = z.object({
  id: z.int(),
  created_at: z.string().nullable(),
  exception_class: z.string().nullable(),
  exception_message: z.string().nullable(),
  source: z.string().nullable(),
  relation_name: z.string().nullable(),
});
export function failedRelation(row: ImportFailure): z.output<typeof ProjectImportFailedRelation> {
  return {
    id: row.id,
    created_at: isoTime(row.createdAt),
    exception_class: row.exceptionClass,
    exception_message: row.exceptionMessage,
    source: row.source,
    relation_name: row.relationKey,
  };
}

/**
 * API::Entities::ProjectImportStatus: the project's identity, `import_status`, `import_type`,
 * `correlation_id`, the hard failures (at most 100) and `import_error`, which only those who may
 * `read_import_error` (maintainers and above) read; others get GitLab's hint instead.
 */
export const ProjectImportStatus = ProjectIdentity.extend({
  import_status: z.string(),
  import_type: z.string().nullable(),
  correlation_id: z.string().nullable(),
  failed_relations: z.array(ProjectImportFailedRelation),
  import_error: z.string().nullable(),
}).meta({ id: "ProjectImportStatus" });
export function projectImportStatus(
  row: { project: Project & { namespace?: Namespace }; job: ProjectTransferJob | null; failures: ImportFailure[]; mayReadError: boolean },
  ctx: PresentContext,
): z.output<typeof ProjectImportStatus> {
  const error = row.job?.status === "failed" ? row.job.error : null;
  return {
    ...projectIdentity(row.project),
    import_status: importStatus(row.job),
    import_type: row.job ? "gitlab_project" : null,
    correlation_id: row.job?.correlationId ?? null,
    failed_relations: row.failures.map(failedRelation),
    import_error: !ctx.actor || !error ? null : row.mayReadError ? error : "Ask a maintainer to check the import status for more details.",
  };
}
