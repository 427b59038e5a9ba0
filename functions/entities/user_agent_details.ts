import * as z from "zod";
import type { userAgentDetails } from "../../db/schema";

type UserAgentDetailRow = typeof userAgentDetails.$inferSelect;

/** Entities::UserAgentDetail (lib/api/entities/user_agent_detail.rb). */
export const UserAgentDetail = z
  .object({ user_agent: z.string().nullable(), ip_address: z.string().nullable(), akismet_submitted: z.boolean() })
  .meta({ id: "UserAgentDetail" });
export function userAgentDetail(row: UserAgentDetailRow): z.output<typeof UserAgentDetail> {
  return {
    user_agent: row.userAgent,
    ip_address: row.ipAddress,
    akismet_submitted: row.submitted,
  };
}
