import type { CiCommitStatus } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { userBasic, type UserBasicRow } from "./users";

export type CommitStatusRow = CiCommitStatus & { author: UserBasicRow | null };

/** API::Entities::CommitStatus (lib/api/entities/commit_status.rb). */
export function commitStatus(row: CommitStatusRow, ctx: PresentContext) {
  return {
    id: row.id,
    sha: row.sha,
    ref: row.ref,
    status: row.status,
    name: row.name,
    target_url: row.targetUrl,
    description: row.description,
    created_at: isoTime(row.createdAt),
    started_at: isoTime(row.startedAt),
    finished_at: isoTime(row.finishedAt),
    allow_failure: row.allowFailure,
    coverage: row.coverage,
    pipeline_id: row.pipelineId,
    author: row.author ? userBasic(row.author, ctx) : null,
  };
}
