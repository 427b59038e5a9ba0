import type { Ctx } from "../../kernel/env";
import { rawParams } from "../../kernel/params";

/**
 * The CI job token of a request (docs/ci.md, "Job token and variables"; lib/api/helpers.rb `job_token_authentication`): the
 * `JOB-TOKEN` header or the `job_token` parameter. Runner routes also accept the body's `token`.
 */
export async function jobTokenOf(c: Ctx): Promise<string | null> {
  const header = c.req.header("job-token");
  if (header) return header.trim();
  const raw = await rawParams(c);
  return typeof raw.job_token === "string" && raw.job_token ? raw.job_token : null;
}
