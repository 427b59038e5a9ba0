import * as z from "zod";
import type { CiCommitStatus } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic, type UserBasicRow } from "./users";

export type CommitStatusRow = CiCommitStatus & { author: UserBasicRow | null };

/** API::Entities::CommitStatus (lib/api/entities/commit_status.rb). */
export const CommitStatus = z
  .object({
    id: z.int(),
    sha: z.string(),
    ref: z.string().nullable(),
    status: z.string(),
    name: z.string(),
    target_url: z.string().nullable(),
    description: z.string().nullable(),
    created_at: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    allow_failure: z.boolean(),
    coverage: z.number().nullable(),
    pipeline_id: z.int().nullable(),
    author: UserBasic.nullable(),
  })
  .meta({ id: "CommitStatus" });
export function commitStatus(row: CommitStatusRow, ctx: PresentContext): z.output<typeof CommitStatus> {
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
