import type { License } from "../../db/schema";
import { isoDate, isoTime, type PresentContext } from "../kernel/present";

/** A license with its seat figures (active users, historical maximum, the daily count when known). */
export type LicenseRow = License & { activeUsers: number; historicalMax: number; dailyCount: number | null };

function expired(row: LicenseRow, ctx: PresentContext): boolean {
  return row.expiresAt !== null && row.expiresAt <= ctx.now.toISOString().slice(0, 10);
}

/** `License#overage`: billable users above the licensed count (never negative); 0 without a user limit. */
function overage(row: LicenseRow, count: number): number {
  if (row.userLimit === null) return 0;
  return Math.max(count - row.userLimit, 0);
}

/**
 * EE::API::Entities::GitlabLicense. The daily count is the last refresh's figure (historical data),
 * falling back to the live count before the first refresh.
 */
export function gitlabLicense(row: LicenseRow, ctx: PresentContext) {
  const daily = row.dailyCount ?? row.activeUsers;
  const isExpired = expired(row, ctx);
  return {
    id: row.id,
    plan: row.plan,
    created_at: isoTime(row.createdAt),
    starts_at: isoDate(row.startsAt),
    expires_at: isoDate(row.expiresAt),
    historical_max: row.historicalMax,
    maximum_user_count: Math.max(row.historicalMax, daily),
    licensee: row.licensee,
    add_ons: row.addOns,
    expired: isExpired,
    // For an expired license the historical maximum counts, else the current billable count.
    overage: overage(row, isExpired ? row.historicalMax : daily),
    user_limit: row.userLimit ?? 0,
  };
}

/** EE::API::Entities::GitlabLicenseWithActiveUsers: GET /license adds the live billable count. */
export function gitlabLicenseWithActiveUsers(row: LicenseRow, ctx: PresentContext) {
  return { ...gitlabLicense(row, ctx), active_users: row.activeUsers };
}
