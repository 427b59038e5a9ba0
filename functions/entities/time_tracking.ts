import * as z from "zod";
import { humanDuration } from "./time_tracking_duration";

export { humanDuration, parseDuration } from "./time_tracking_duration";

/** What an issuable row carries for time tracking (issues and merge_requests keep the spent total). */
export type TimeTracked = { timeEstimate: number; totalTimeSpent: number };

/**
 * Entities::IssuableTimeStats (lib/api/entities/issuable_time_stats.rb), also the `time_stats` of the
 * issue and merge request entities. Human values are null for zero.
 */
export const IssuableTimeStats = z
  .object({
    time_estimate: z.int(),
    total_time_spent: z.int(),
    human_time_estimate: z.string().nullable(),
    human_total_time_spent: z.string().nullable(),
  })
  .meta({ id: "IssuableTimeStats" });
export function timeStats(row: TimeTracked): z.output<typeof IssuableTimeStats> {
  return {
    time_estimate: row.timeEstimate,
    total_time_spent: row.totalTimeSpent,
    human_time_estimate: humanDuration(row.timeEstimate),
    human_total_time_spent: humanDuration(row.totalTimeSpent),
  };
}
