import * as z from "zod";
import { authorize } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { paramsError, recordNotFound, tooLarge } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { decodeQuery, p, validateParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { packageFile } from "../entities";
import * as q from "../queries";
import { MAX_FILE_BYTES, storeFile } from "../services";

/**
 * The generic package registry (lib/api/generic_packages.rb): files uploaded with `PUT` (the request
 * body is the file) and downloaded with `GET`. Parameters come from the path and the query string only,
 * so the body is never parsed.
 */
export const genericPackagesRoutes = router();

const PATH = "/projects/:id/packages/generic/:package_name/:package_version/:file_name";
/** Gitlab::Regex `generic_package_name_regex`, `generic_package_version_regex`, `generic_package_file_name_regex`. */
const NAME = /^[A-Za-z0-9._\-+]+$/;
const VERSION = /^\d+\.\d+\.\d+$/;

const Upload = z.object({ status: p.oneOf("default", "hidden").optional(), select: p.oneOf("package_file").optional() });

function pathParams(c: Ctx) {
  const name = c.req.param("package_name")!;
  const version = c.req.param("package_version")!;
  const fileName = c.req.param("file_name")!;
  const invalid = [
    ...(NAME.test(name) ? [] : ["package_name is invalid"]),
    ...(VERSION.test(version) ? [] : ["package_version is invalid"]),
    ...(NAME.test(fileName) ? [] : ["file_name is invalid"]),
  ];
  if (invalid.length) throw paramsError(invalid.join(", "));
  return { name, version, fileName };
}

/** PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name (lib/api/generic_packages.rb) */
genericPackagesRoutes.put(PATH, async (c) => {
  const actor = requireUser(c);
  const params = validateParams(decodeQuery(new URL(c.req.url).search.slice(1)), Upload);
  const path = pathParams(c);
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "create_package", project);
  if (Number(c.req.header("content-length") ?? 0) > MAX_FILE_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > MAX_FILE_BYTES) throw tooLarge();
  const stored = await storeFile(c.env.BLOBS, project.id, path.fileName, bytes);
  const file = await q.addGenericFile(c.var.db(), project.id, actor.user.id, { name: path.name, version: path.version, status: params.status ?? "default", pipelineId: actor.job?.pipelineId ?? null }, stored);
  if (params.select === "package_file") return present(c, file, packageFile);
  return c.json({ message: "201 Created" }, 201); // `created!`
});

/** GET /projects/:id/packages/generic/:package_name/:package_version/:file_name (lib/api/generic_packages.rb) */
genericPackagesRoutes.get(PATH, async (c) => {
  const path = pathParams(c);
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_package", project);
  const file = await q.findGenericFile(c.var.db(), project.id, path.name, path.version, path.fileName);
  if (!file) throw recordNotFound();
  const object = await c.env.BLOBS.get(file.fileStore);
  if (!object) throw recordNotFound();
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(file.size),
      "Content-Disposition": `attachment; filename="${file.fileName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    },
  });
});
