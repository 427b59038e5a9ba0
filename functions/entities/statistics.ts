import * as z from "zod";

/** `number_with_delimiter`: 1234567 → "1,234,567". */
export function withDelimiter(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const KEYS = ["forks", "issues", "merge_requests", "notes", "snippets", "ssh_keys", "milestones", "users", "projects", "groups", "active_users"] as const;

/** API::Entities::ApplicationStatistics (lib/api/entities/application_statistics.rb): strings with commas. */
export const ApplicationStatistics = z.object(Object.fromEntries(KEYS.map((k) => [k, z.string()])) as Record<(typeof KEYS)[number], z.ZodString>).meta({ id: "ApplicationStatistics" });
export function applicationStatistics(counts: Record<(typeof KEYS)[number], number>): z.output<typeof ApplicationStatistics> {
  return Object.fromEntries(KEYS.map((k) => [k, withDelimiter(counts[k])])) as z.output<typeof ApplicationStatistics>;
}

/** API::Entities::ProjectDailyFetches and ProjectDailyStatistics (lib/api/entities/project_daily_*.rb). */
export const ProjectDailyStatistics = z
  .object({
    fetches: z.object({
      total: z.int(),
      days: z.array(z.object({ count: z.int(), date: z.string() })),
    }),
  })
  .meta({ id: "ProjectDailyStatistics" });
export function projectDailyStatistics(days: { date: string; fetchCount: number }[]): z.output<typeof ProjectDailyStatistics> {
  return {
    fetches: {
      total: days.reduce((sum, d) => sum + d.fetchCount, 0),
      days: days.map((d) => ({ count: d.fetchCount, date: d.date })),
    },
  };
}
