import type { userAgentDetails } from "../../db/schema";

type UserAgentDetailRow = typeof userAgentDetails.$inferSelect;

/** Entities::UserAgentDetail (lib/api/entities/user_agent_detail.rb). */
export function userAgentDetail(row: UserAgentDetailRow) {
  return {
    user_agent: row.userAgent,
    ip_address: row.ipAddress,
    akismet_submitted: row.submitted,
  };
}
