// `statistics=true` on the project endpoints (lib/api/projects.rb `statistics_params`, the Project
// entity's `statistics` exposed `if: options[:statistics] && can?(current_user, :read_statistics, project)`).
import { allowed } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import type { ProjectRow } from "../entities/projects";
import { projectStatistics } from "./statistics_queries";

/**
 * The rows with their `statistics` when `wanted`, for the projects the caller may read them of
 * (reporters and up, admins): one statement for the whole page, none when not asked.
 */
export async function withStatistics<T extends ProjectRow>(c: Ctx, rows: T[], wanted: boolean | undefined): Promise<T[]> {
  if (!wanted || rows.length === 0) return rows;
  const ids = rows.filter((row) => allowed(c.var.actor, "read_statistics", row)).map((row) => row.id);
  const statistics = await projectStatistics(c.var.db(), ids);
  return rows.map((row) => (statistics.has(row.id) ? { ...row, statistics: statistics.get(row.id)! } : row));
}
