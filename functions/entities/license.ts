import * as z from "zod";
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
export const GitlabLicense = z
  .object({
    id: z.int(),
    plan: z.string(),
    created_at: z.string().nullable(),
    starts_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    historical_max: z.int(),
    maximum_user_count: z.int(),
    licensee: z.record(z.string(), z.unknown()),
    add_ons: z.record(z.string(), z.int()),
    expired: z.boolean(),
    overage: z.int(),
    user_limit: z.int(),
  })
  .meta({ id: "GitlabLicense" });
export function gitlabLicense(row: LicenseRow, ctx: PresentContext): z.output<typeof GitlabLicense> {
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
export const GitlabLicenseWithActiveUsers = GitlabLicense.extend({ active_users: z.int() }).meta({ id: "GitlabLicenseWithActiveUsers" });
export function gitlabLicenseWithActiveUsers(row: LicenseRow, ctx: PresentContext): z.output<typeof GitlabLicenseWithActiveUsers> {
  return { ...gitlabLicense(row, ctx), active_users: row.activeUsers };
}
