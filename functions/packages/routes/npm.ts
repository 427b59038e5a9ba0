import { requireUserOrDeployToken } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { apiError, badRequest, recordNotFound, tooLarge } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { rawParams } from "../../kernel/params";
import { baseUrl } from "../../kernel/present";
import { router } from "../../kernel/router";
import { npmPackageMetadata } from "../../entities/packages_npm";
import * as q from "../queries";
import { MAX_FILE_BYTES, storeFile } from "../services";

/**
 * The npm registry of a project (lib/api/npm_project_packages.rb): `npm publish` PUTs the package
 * document, `npm install` reads the metadata and the tarballs. Point npm at it with
 * `@scope:registry=<base>/api/v4/projects/<id>/packages/npm/` and a token in `.npmrc`. Not built:
 * the instance-level endpoint, dist-tag endpoints and `npm audit`.
 */
export const npmPackagesRoutes = router();

/** npm names (validate-npm-package-name, as Gitlab::Regex.npm_package_name_regex). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9._~-][a-z0-9._~-]*$/i;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function packageName(c: Ctx): string {
  const name = c.req.param("package_name")!;
  if (!NPM_NAME.test(name)) throw recordNotFound();
  return name;
}

function tarballUrl(c: Ctx, projectId: number, name: string, fileName: string): string {
  return `${baseUrl(c)}/api/v4/projects/${projectId}/packages/npm/${encodeURIComponent(name)}/-/${encodeURIComponent(fileName)}`;
}

/** GET /projects/:id/packages/npm/*package_name (lib/api/npm_project_packages.rb): the package document. */
npmPackagesRoutes.get("/projects/:id/packages/npm/:package_name", async (c) => {
  const name = packageName(c);
  const project = await authorizedProject(c, "read_package");
  const versions = await q.npmVersions(c.var.db(), project.id, name);
  if (versions.length === 0) throw recordNotFound();
  return c.json(npmPackageMetadata(name, versions, (fileName) => tarballUrl(c, project.id, name, fileName)));
});

/** GET /projects/:id/packages/npm/*package_name/-/*file_name (lib/api/npm_project_packages.rb): a tarball. */
npmPackagesRoutes.get("/projects/:id/packages/npm/:package_name/-/:file_name", async (c) => {
  const name = packageName(c);
  const project = await authorizedProject(c, "read_package");
  const file = await q.findNpmFile(c.var.db(), project.id, name, c.req.param("file_name")!);
  if (!file) throw recordNotFound();
  const object = await c.env.BLOBS.get(file.fileStore);
  if (!object) throw recordNotFound();
  return new Response(object.body, { headers: { "Content-Type": "application/octet-stream", "Content-Length": String(file.size) } });
});

/**
 * PUT /projects/:id/packages/npm/:package_name (lib/api/npm_project_packages.rb,
 * Packages::Npm::CreatePackageService): one version with its tarball (`_attachments`, base64) and its
 * dist-tags. A version that exists is `403 Package already exists.`.
 */
npmPackagesRoutes.put("/projects/:id/packages/npm/:package_name", async (c) => {
  const actor = requireUserOrDeployToken(c);
  const name = packageName(c);
  const project = await authorizedProject(c, "create_package");
  const body = await rawParams(c);
  const versions = (body.versions ?? {}) as Record<string, Record<string, unknown>>;
  const version = Object.keys(versions)[0];
  const attachments = (body._attachments ?? {}) as Record<string, { data?: unknown }>;
  const attachment = Object.values(attachments)[0];
  if (body.name !== name || !version || typeof attachment?.data !== "string") throw badRequest("Package document is invalid");
  if (!SEMVER.test(version)) throw apiError("Version is invalid", 400);
  const data = attachment.data;
  if (data.length > (MAX_FILE_BYTES * 4) / 3 + 4) throw tooLarge();
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(data), (ch) => ch.charCodeAt(0));
  } catch {
    throw badRequest("Package document is invalid");
  }
  const distTags = (body["dist-tags"] ?? {}) as Record<string, unknown>;
  const tags = Object.entries(distTags).filter(([, v]) => v === version).map(([tag]) => tag);
  const fileName = `${name}-${version}.tgz`;
  const stored = await storeFile(c.env.BLOBS, project.id, fileName, bytes);
  const created = await q.createNpmVersion(c.var.db(), project.id, actor?.user.id ?? null, { name, version, packageJson: versions[version], tags, pipelineId: actor?.job?.pipelineId ?? null }, stored);
  if (!created) {
    await c.env.BLOBS.delete(stored.fileStore);
    throw apiError("Package already exists.", 403);
  }
  return c.json({ ok: true }, 200); // what the npm CLI reads back from a registry
});
