import type { Package, PackageFile } from "../../db/schema";

/** One installable version of an npm package: its metadata, its tarball and the dist-tags on it. */
export type NpmVersion = Package & { packageJson: Record<string, unknown>; file: PackageFile | null; tags: string[] };

/**
 * The npm package document (`NpmPackagesPresenter`): every version's `package.json` with `dist`
 * pointing at our tarball (`shasum` is the file's sha1; `integrity` as published), and the dist-tags.
 */
export function npmPackageMetadata(name: string, versions: NpmVersion[], tarball: (fileName: string) => string) {
  const out: Record<string, unknown> = {};
  const distTags: Record<string, string> = {};
  for (const v of versions) {
    if (!v.file || !v.version) continue;
    const published = (v.packageJson.dist ?? {}) as Record<string, unknown>;
    out[v.version] = {
      ...v.packageJson,
      name,
      version: v.version,
      dist: { ...(typeof published.integrity === "string" ? { integrity: published.integrity } : {}), shasum: v.file.fileSha1, tarball: tarball(v.file.fileName) },
    };
    for (const tag of v.tags) distTags[tag] = v.version;
  }
  return { name, versions: out, "dist-tags": distTags };
}
