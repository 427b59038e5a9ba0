import * as z from "zod";
import type { CiPipeline, Package, PackageFile, PackageTag, User } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { PipelineBasic, pipelineBasic } from "./pipelines";
import { UserBasic, userBasic } from "./users";

/** A pipeline with its user and its project's path (a job may publish to another project's registry). */
export type PackagePipeline = CiPipeline & { user: User | null; projectFullPath: string };

export type PackageRow = Package & {
  tags: PackageTag[];
  projectFullPath: string;
  /** Other versions of the package (single reads only). */
  versions?: (Package & { tags: PackageTag[] })[];
  /** The pipelines that published it, newest build info first. */
  pipelines?: PackagePipeline[];
};

type PackageContext = PresentContext & { canDestroy: (projectId: number) => boolean; group?: boolean };

/** A packages_tags row as GitLab serialises the relation (no entity: the record's attributes). */
const PackageTagEntity = z.object({ id: z.int(), package_id: z.int(), name: z.string(), created_at: z.string().nullable(), updated_at: z.string().nullable() });
export function packageTag(tag: PackageTag): z.output<typeof PackageTagEntity> {
  return { id: tag.id, package_id: tag.packageId, name: tag.name, created_at: isoTime(tag.createdAt), updated_at: isoTime(tag.updatedAt) };
}

/** API::Entities::PackageVersion */
const PackageVersion = z.object({ id: z.int(), version: z.string().nullable(), created_at: z.string().nullable(), tags: z.array(PackageTagEntity) });
export function packageVersion(row: Package & { tags: PackageTag[] }): z.output<typeof PackageVersion> {
  return { id: row.id, version: row.version, created_at: isoTime(row.createdAt), tags: row.tags.map(packageTag) };
}

/**
 * API::Entities::Package. `_links.delete_api_path` only for callers who may delete; `project_id` and
 * `project_path` in group lists; `versions` on single reads; `pipeline` (the last build info's) and
 * `pipelines` only when a CI job published the package, as GitLab omits both otherwise.
 */
export const PackagePipelineEntity = PipelineBasic.extend({ user: UserBasic.nullable() }).meta({ id: "PackagePipeline" });
export const PackageEntity = z
  .object({
    id: z.int(),
    name: z.string(),
    version: z.string().nullable(),
    package_type: z.string(),
    status: z.string(),
    _links: z.object({ web_path: z.string(), delete_api_path: z.string().optional() }),
    created_at: z.string().nullable(),
    last_downloaded_at: z.string().nullable(),
    project_id: z.int().optional(),
    project_path: z.string().optional(),
    tags: z.array(PackageTagEntity),
    pipeline: PackagePipelineEntity.optional(),
    pipelines: z.array(PackagePipelineEntity).optional(),
    versions: z.array(PackageVersion).optional(),
  })
  .meta({ id: "Package" });
export function packageEntity(row: PackageRow, ctx: PackageContext): z.output<typeof PackageEntity> {
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
    ...(row.pipelines?.length ? { pipeline: packagePipeline(row.pipelines[0], ctx), pipelines: row.pipelines.map((p) => packagePipeline(p, ctx)) } : {}),
    ...(row.versions ? { versions: row.versions.map(packageVersion) } : {}),
  };
}

/** API::Entities::PackageFile */
export const PackageFileEntity = z
  .object({
    id: z.int(),
    package_id: z.int(),
    created_at: z.string().nullable(),
    file_name: z.string(),
    size: z.number(),
    file_md5: z.string().nullable(),
    file_sha1: z.string().nullable(),
    file_sha256: z.string().nullable(),
  })
  .meta({ id: "PackageFile" });
export function packageFile(file: PackageFile): z.output<typeof PackageFileEntity> {
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

export const PackageFileRecordEntity = PackageFileEntity.extend({
  updated_at: z.string().nullable(),
  file: z.object({ url: z.string() }),
}).meta({ id: "PackageFileRecord" });

/**
 * The package file as the generic registry's `select=package_file` answers it: GitLab presents the
 * model itself (`present response[:package_file]`, no entity), so its `as_json` shows the uploader as
 * `file: {url}`; clients read it (@semantic-release/gitlab logs `file.url`). Deliberate difference: the
 * url is the file's download path in the API (GitLab's is the object store's), and the verification
 * and storage columns of the model are not shown.
 */
export function packageFileRecord(file: PackageFile & { downloadPath: string }): z.output<typeof PackageFileRecordEntity> {
  return { ...packageFile(file), updated_at: isoTime(file.updatedAt), file: { url: file.downloadPath } };
}

/** API::Entities::Package::Pipeline: PipelineBasic with the pipeline's user. */
export function packagePipeline(row: PackagePipeline, ctx: PresentContext): z.output<typeof PackagePipelineEntity> {
  return { ...pipelineBasic(row, { ...ctx, projectPath: row.projectFullPath }), user: row.user ? userBasic(row.user, ctx) : null };
}
