import { sql } from "drizzle-orm";
import type { Executor } from "../kernel/db";
import type { GroupStatistics } from "../entities/groups";
import type { ProjectStatisticsRow } from "../entities/projects";

export type { ProjectStatisticsRow };

/** The sizes of the project `p` (`storage_size` excepted), as columns: the select list both statements share. */
const sizesOf = sql.raw(`
          (SELECT coalesce(sum(coalesce(octet_length(o.zdata), o.size)), 0) FROM git_objects o WHERE o.pool_id = coalesce(p.pool_id, p.id)) AS repository_size,
          (SELECT coalesce(sum(coalesce(octet_length(o.zdata), o.size)), 0) FROM wikis wk JOIN git_objects o ON o.pool_id = -wk.id WHERE wk.project_id = p.id) AS wiki_size,
          (SELECT coalesce(sum(l.size), 0) FROM lfs_objects_projects lp JOIN lfs_objects l ON l.id = lp.lfs_object_id WHERE lp.project_id = p.id) AS lfs_objects_size,
          (SELECT coalesce(sum(a.size), 0) FROM ci_builds b JOIN ci_job_artifacts a ON a.job_id = b.id WHERE b.project_id = p.id) AS job_artifacts_size,
          0 AS pipeline_artifacts_size,
          (SELECT coalesce(sum(f.size), 0) FROM packages_packages k JOIN packages_package_files f ON f.package_id = k.id WHERE k.project_id = p.id) AS packages_size,
          (SELECT coalesce(sum(coalesce((SELECT sum(octet_length(sf.content)) FROM snippet_files sf WHERE sf.snippet_id = sn.id), octet_length(sn.content))), 0)
             FROM snippets sn WHERE sn.project_id = p.id) AS snippets_size,
          (SELECT coalesce(sum(u.size), 0) FROM uploads u WHERE u.model_type = 'Project' AND u.model_id = p.id) AS uploads_size`);

/** The columns summed into `storage_size` (ProjectStatistics::STORAGE_SIZE_COMPONENTS, 15.4). */
const storageSize = sql`s.repository_size + s.wiki_size + s.lfs_objects_size + s.job_artifacts_size + s.pipeline_artifacts_size
             + s.packages_size + s.snippets_size + s.uploads_size`;

/**
 * ProjectStatistics of a page of projects (`statistics=true`), in ONE aggregate statement whatever the
 * page's size. Each size is summed from the rows that hold it:
 * - `commit_count`: the commits reachable from the default branch (`Repository#commit_count`);
 * - `repository_size` / `wiki_size`: the stored (deflated) size of the git objects of the project's
 *   object pool / of its wiki's (a blob kept in R2 counts its inflated size, which is all the row knows);
 * - `lfs_objects_size`, `job_artifacts_size` (build_artifacts_size), `packages_size`, `uploads_size`:
 *   the sizes recorded with the files; `snippets_size`: the bytes of the project's snippets' files;
 * - `container_registry_size`: the distinct blobs of the project's image repositories;
 * - `pipeline_artifacts_size`: 0, there are no pipeline artifacts;
 * - `storage_size`: GitLab 15.4's sum (every size but the commit count and the container registry).
 * Differs from GitLab: GitLab keeps these in `project_statistics`, refreshed in the background; here they
 * are read when asked for. A fork's repository size is its fork network's pool (the objects are shared).
 */
export async function projectStatistics(db: Executor, projectIds: number[]): Promise<Map<number, ProjectStatisticsRow>> {
  if (projectIds.length === 0) return new Map();
  const { rows } = await db.execute<Record<keyof ProjectStatisticsRow | "project_id", string | number>>(sql`
    SELECT s.*, ${storageSize} AS storage_size
      FROM (
        SELECT p.id AS project_id,
          (SELECT count(*) FROM (
             WITH RECURSIVE walk(oid, parents) AS (
               SELECT c.oid, c.parents FROM git_refs r
                 JOIN git_commits c ON c.pool_id = coalesce(p.pool_id, p.id) AND c.oid = coalesce(r.peeled, r.target)
                WHERE r.project_id = p.id AND r.name = 'refs/heads/' || p.default_branch
               UNION
               SELECT c.oid, c.parents FROM walk w CROSS JOIN LATERAL unnest(w.parents) AS x(oid)
                 JOIN git_commits c ON c.pool_id = coalesce(p.pool_id, p.id) AND c.oid = x.oid::char(40))
             SELECT 1 FROM walk) AS walked) AS commit_count,
          ${sizesOf},
          (SELECT coalesce(sum(d.size), 0) FROM (SELECT DISTINCT cb.digest, cb.size FROM container_repositories cr
             JOIN container_repository_blobs cb ON cb.repository_id = cr.id WHERE cr.project_id = p.id) d) AS container_registry_size
          FROM projects p WHERE p.id = ANY(${sql.param(projectIds)}::int[])) s`);
  const out = new Map<number, ProjectStatisticsRow>();
  for (const row of rows) {
    out.set(Number(row.project_id), {
      commit_count: Number(row.commit_count),
      storage_size: Number(row.storage_size),
      repository_size: Number(row.repository_size),
      wiki_size: Number(row.wiki_size),
      lfs_objects_size: Number(row.lfs_objects_size),
      job_artifacts_size: Number(row.job_artifacts_size),
      pipeline_artifacts_size: Number(row.pipeline_artifacts_size),
      packages_size: Number(row.packages_size),
      snippets_size: Number(row.snippets_size),
      uploads_size: Number(row.uploads_size),
      container_registry_size: Number(row.container_registry_size),
    });
  }
  return out;
}

/**
 * `Namespace.with_statistics` (app/models/namespace.rb, 15.4) for a page of namespaces, in ONE aggregate
 * statement: the sums of the statistics of the projects directly in each namespace (`project_statistics`
 * joined on `namespace_id`: a subgroup's projects count for the subgroup only, as in GitLab), each
 * project's sizes computed as `projectStatistics` computes them. A namespace without projects sums to 0.
 */
export async function namespaceStatistics(db: Executor, namespaceIds: number[]): Promise<Map<number, GroupStatistics>> {
  const out = new Map<number, GroupStatistics>();
  if (namespaceIds.length === 0) return out;
  const { rows } = await db.execute<Record<string, string | number>>(sql`
    SELECT s.namespace_id, sum(${storageSize}) AS storage_size, sum(s.repository_size) AS repository_size, sum(s.wiki_size) AS wiki_size,
           sum(s.lfs_objects_size) AS lfs_objects_size, sum(s.job_artifacts_size) AS job_artifacts_size,
           sum(s.pipeline_artifacts_size) AS pipeline_artifacts_size, sum(s.packages_size) AS packages_size,
           sum(s.snippets_size) AS snippets_size, sum(s.uploads_size) AS uploads_size
      FROM (SELECT p.namespace_id, ${sizesOf} FROM projects p WHERE p.namespace_id = ANY(${sql.param(namespaceIds)}::int[])) s
     GROUP BY s.namespace_id`);
  for (const id of namespaceIds) {
    out.set(id, { storageSize: 0, repositorySize: 0, wikiSize: 0, lfsObjectsSize: 0, jobArtifactsSize: 0, pipelineArtifactsSize: 0, packagesSize: 0, snippetsSize: 0, uploadsSize: 0 });
  }
  for (const row of rows) {
    out.set(Number(row.namespace_id), {
      storageSize: Number(row.storage_size),
      repositorySize: Number(row.repository_size),
      wikiSize: Number(row.wiki_size),
      lfsObjectsSize: Number(row.lfs_objects_size),
      jobArtifactsSize: Number(row.job_artifacts_size),
      pipelineArtifactsSize: Number(row.pipeline_artifacts_size),
      packagesSize: Number(row.packages_size),
      snippetsSize: Number(row.snippets_size),
      uploadsSize: Number(row.uploads_size),
    });
  }
  return out;
}
