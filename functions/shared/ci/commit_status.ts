// GenericCommitStatus's state machine (app/models/commit_status.rb, GitLab 15.4) as the statuses API
// drives it (lib/api/commit_statuses.rb), pure; and which pipelines of a commit a status attaches to,
// which the statuses API reads and the pipeline engine (shared/ci/external.ts) writes by.
import { and, eq, sql, type SQL } from "drizzle-orm";
import { ciPipelines } from "../../../db/schema";
import { isRowId } from "../../kernel/params";

/** `all_matching_pipelines`: the commit's pipelines, on `ref` and with `pipeline_id` when given (newest first is the caller's). */
export function matchingPipelines(projectId: number, sha: string, match: { ref?: string; pipelineId?: number }): SQL {
  return and(
    eq(ciPipelines.projectId, projectId),
    eq(ciPipelines.sha, sha),
    match.ref !== undefined ? eq(ciPipelines.ref, match.ref) : undefined,
    // An id past the column's range names no pipeline (GitLab's `id_in` finds none), not a 500.
    match.pipelineId !== undefined ? (isRowId(match.pipelineId) ? eq(ciPipelines.id, match.pipelineId) : sql`false`) : undefined,
  )!;
}

export type StatusState = "created" | "pending" | "running" | "success" | "failed" | "canceled";
export type RequestedState = "pending" | "running" | "success" | "failed" | "canceled";

type Event = "enqueue" | "run" | "success" | "drop" | "cancel";

const FROM: Record<Event, StatusState[]> = {
  enqueue: ["created"],
  run: ["pending"],
  success: ["created", "pending", "running"],
  drop: ["created", "pending", "running"],
  cancel: ["created", "pending", "running"],
};
const TO: Record<Event, StatusState> = { enqueue: "pending", run: "running", success: "success", drop: "failed", cancel: "canceled" };

export type Transition =
  | { ok: true; status: StatusState; started: boolean; finished: boolean }
  | { ok: false; message: string };

function fire(event: Event, from: StatusState): StatusState | null {
  return FROM[event].includes(from) ? TO[event] : null;
}

const invalid = (event: Event, from: StatusState) => ({
  ok: false as const,
  message: `Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")`,
});

/**
 * The API's `case params[:state]`: `pending` → `enqueue!`, `running` → `enqueue` (quietly) then `run!`,
 * `success` → `success!`, `failed` → `drop!`, `canceled` → `cancel!`. A bang event that cannot fire is
 * GitLab's InvalidTransition message (400). `started`/`finished` say which timestamps to set.
 */
export function transition(from: StatusState, state: RequestedState): Transition {
  const done = (status: StatusState) => ({ ok: true as const, status, started: status === "running", finished: ["success", "failed", "canceled"].includes(status) });
  switch (state) {
    case "pending": {
      const to = fire("enqueue", from);
      return to ? done(to) : invalid("enqueue", from);
    }
    case "running": {
      const queued = fire("enqueue", from) ?? from;
      const to = fire("run", queued);
      return to ? done(to) : invalid("run", queued);
    }
    case "success": {
      const to = fire("success", from);
      return to ? done(to) : invalid("success", from);
    }
    case "failed": {
      const to = fire("drop", from);
      return to ? done(to) : invalid("drop", from);
    }
    case "canceled": {
      const to = fire("cancel", from);
      return to ? done(to) : invalid("cancel", from);
    }
  }
}
