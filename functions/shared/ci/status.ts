/**
 * Composite status (lib/gitlab/ci/status/composite.rb, docs/ci.md, "Composite status"): the status of a stage, a pipeline or
 * a job's needs from the latest jobs' (status, allow_failure) pairs. Pure; table-tested.
 */
export type JobStatus =
  | "created" | "waiting_for_resource" | "preparing" | "pending" | "running" | "success" | "failed"
  | "canceling" | "canceled" | "skipped" | "manual" | "scheduled" | "waiting_for_callback";

export const COMPLETED = new Set(["success", "failed", "canceled", "skipped"]);
export const ACTIVE = new Set(["preparing", "pending", "running", "waiting_for_resource", "waiting_for_callback", "canceling"]);
export const CANCELABLE = new Set(["created", "waiting_for_resource", "preparing", "pending", "running", "scheduled", "manual"]);

export type StatusInput = { status: string; allowFailure: boolean };

/** Returns null when there are no jobs (callers read that as `success`). */
export function compositeStatus(jobs: readonly StatusInput[], dag = false): JobStatus | null {
  if (jobs.length === 0) return null;
  const set = new Set<string>();
  for (const job of jobs) {
    if (job.allowFailure && (job.status === "failed" || job.status === "canceled")) set.add("success_with_warnings");
    else if (job.allowFailure && job.status === "manual") set.add("ignored");
    else set.add(job.status);
  }
  const only = (...xs: string[]) => [...set].every((s) => xs.includes(s));
  const any = (...xs: string[]) => xs.some((x) => set.has(x));
  if (dag && any("skipped", "ignored")) return "skipped";
  if (dag && !only("success", "failed", "canceled", "skipped", "success_with_warnings")) return "pending";
  if (only("skipped", "ignored")) return "skipped";
  if (only("success", "skipped", "success_with_warnings", "ignored")) return "success";
  if (only("created", "success_with_warnings", "ignored")) return "created";
  if (only("preparing", "success_with_warnings", "ignored")) return "preparing";
  if (only("canceled", "success", "skipped", "success_with_warnings", "ignored")) return "canceled";
  if (only("pending", "created", "skipped", "success_with_warnings", "ignored")) return "pending";
  if (any("running", "pending")) return "running";
  if (any("waiting_for_resource")) return "waiting_for_resource";
  if (any("waiting_for_callback")) return "waiting_for_callback";
  if (any("manual")) return "manual";
  if (any("scheduled")) return "scheduled";
  if (any("preparing")) return "preparing";
  if (any("created")) return "running";
  if (any("canceling")) return "canceling";
  return "failed";
}
