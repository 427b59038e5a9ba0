import type { Package, PackageFile, PackageTag } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";

export type PackageRow = Package & {
  tags: PackageTag[];
  projectFullPath: string;
  /** Other versions of the package (single reads only). */
  versions?: (Package & { tags: PackageTag[] })[];
};

type PackageContext = PresentContext & { canDestroy: (projectId: number) => boolean; group?: boolean };

/** A packages_tags row as GitLab serialises the relation (no entity: the record's attributes). */
export function packageTag(tag: PackageTag) {
  return { id: tag.id, package_id: tag.packageId, name: tag.name, created_at: isoTime(tag.createdAt), updated_at: isoTime(tag.updatedAt) };
}

/** API::Entities::PackageVersion */
export function packageVersion(row: Package & { tags: PackageTag[] }) {
  return { id: row.id, version: row.version, created_at: isoTime(row.createdAt), tags: row.tags.map(packageTag) };
}

/**
 * API::Entities::Package. `_links.delete_api_path` only for callers who may delete; `project_id` and
 * `project_path` in group lists; `versions` on single reads. No `pipelines`: packages are not built by
 * CI yet, and GitLab omits the key when a package has none.
 */
export function packageEntity(row: PackageRow, ctx: PackageContext) {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    package_type: row.packageType,
    status: row.status,
    _links: {
      web_path: `/${row.projectFullPath}/-/packages/${row.id}`,
      ...(ctx.canDestroy(row.projectId) ? { delete_api_path: `${ctx.baseUrl}/api/v4/projects/${row.projectId}/packages/${row.id}` } : {}),
    },
    created_at: isoTime(row.createdAt),
    last_downloaded_at: isoTime(row.lastDownloadedAt),
    ...(ctx.group ? { project_id: row.projectId, project_path: row.projectFullPath } : {}),
    tags: row.tags.map(packageTag),
    ...(row.versions ? { versions: row.versions.map(packageVersion) } : {}),
  };
}

/** API::Entities::PackageFile */
export function packageFile(file: PackageFile) {
  return {
    id: file.id,
    package_id: file.packageId,
    created_at: isoTime(file.createdAt),
    file_name: file.fileName,
    size: file.size,
    file_md5: file.fileMd5,
    file_sha1: file.fileSha1,
    file_sha256: file.fileSha256,
  };
}
