import { sql } from "drizzle-orm";
import { namespaces, projects, users } from "../../db/schema";
import type { Executor } from "../kernel/db";

export type TargetNames = { user?: string[]; project?: string[]; group?: string[]; namespace?: string[]; repository?: string[] };

/** Rows named by lowercase name, for each kind of target, in one statement. */
export async function findTargets(db: Executor, t: TargetNames): Promise<{ kind: string; name: string; type: string; id: number }[]> {
  const lower = (names?: string[]) => sql.param((names ?? []).map((n) => n.toLowerCase()));
  const repoPaths = (t.repository ?? []).map((r) => r.toLowerCase().replace(/\.git$/, "").replace(/\.wiki$/, ""));
  const { rows } = await db.execute<{ kind: string; name: string; type: string; id: number }>(sql`
    SELECT 'user' AS kind, lower(${users.username}) AS name, 'User' AS type, ${users.id} AS id FROM ${users}
      WHERE lower(${users.username}) = ANY(${lower(t.user)}::text[])
    UNION ALL
    SELECT 'project', lower(${projects.fullPath}), 'Project', ${projects.id} FROM ${projects}
      WHERE lower(${projects.fullPath}) = ANY(${lower(t.project)}::text[])
    UNION ALL
    SELECT 'group', lower(${namespaces.fullPath}), 'Group', ${namespaces.id} FROM ${namespaces}
      WHERE ${namespaces.type} = 'Group' AND lower(${namespaces.fullPath}) = ANY(${lower(t.group)}::text[])
    UNION ALL
    SELECT 'namespace', lower(${namespaces.fullPath}), CASE WHEN ${namespaces.type} = 'Group' THEN 'Group' ELSE 'Namespaces::UserNamespace' END, ${namespaces.id}
      FROM ${namespaces}
      WHERE ${namespaces.type} IN ('Group', 'User') AND lower(${namespaces.fullPath}) = ANY(${lower(t.namespace)}::text[])
    UNION ALL
    SELECT 'repository', lower(${projects.fullPath}), 'Repository', ${projects.id} FROM ${projects}
      WHERE lower(${projects.fullPath}) = ANY(${sql.param(repoPaths)}::text[])`);
  return rows;
}
