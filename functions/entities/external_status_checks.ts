import * as z from "zod";
import type { ExternalStatusCheck, StatusCheckResponse } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { mergeRequest, MergeRequestEntity, type MergeRequestContext, type MergeRequestRow } from "./merge_requests";
import { ProtectedBranch, protectedBranch, type Protection } from "./protected_branches";

/** A check with the protected branches it applies to (none: every branch). */
export type CheckWithBranches = ExternalStatusCheck & { protectedBranches: Protection[] };

/** API::Entities::ExternalStatusCheck (15.4: no `hmac`, which came with shared secrets in 16.x). */
export const ExternalStatusCheckEntity = z
  .object({ id: z.int(), name: z.string(), project_id: z.int(), external_url: z.string(), protected_branches: z.array(ProtectedBranch) })
  .meta({ id: "ExternalStatusCheck" });
export function externalStatusCheck(check: CheckWithBranches, _ctx?: PresentContext): z.output<typeof ExternalStatusCheckEntity> {
  return {
    id: check.id,
    name: check.name,
    project_id: check.projectId,
    external_url: check.externalUrl,
    protected_branches: check.protectedBranches.map(protectedBranch),
  };
}

/**
 * API::Entities::MergeRequests::StatusCheck: a check as it stands for the merge request's head
 * (`ExternalStatusCheck#status`: the newest response at that sha, `pending` without one).
 */
export const StatusCheck = z.object({ id: z.int(), name: z.string(), external_url: z.string(), status: z.string() }).meta({ id: "StatusCheck" });
export function statusCheck(check: ExternalStatusCheck & { status: string }, _ctx?: PresentContext): z.output<typeof StatusCheck> {
  return { id: check.id, name: check.name, external_url: check.externalUrl, status: check.status };
}

/** API::Entities::MergeRequests::StatusCheckResponse: the response with its merge request and check. */
export const StatusCheckResponseEntity = z
  .object({ id: z.int(), merge_request: MergeRequestEntity, external_status_check: ExternalStatusCheckEntity })
  .meta({ id: "StatusCheckResponse" });
export function statusCheckResponse(
  response: StatusCheckResponse & { mergeRequest: MergeRequestRow; check: CheckWithBranches },
  ctx: MergeRequestContext,
): z.output<typeof StatusCheckResponseEntity> {
  return { id: response.id, merge_request: mergeRequest(response.mergeRequest, ctx), external_status_check: externalStatusCheck(response.check) };
}
