import * as z from "zod";
import { requireUserOrDeployToken } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { recordNotFound } from "../../kernel/errors";
import { streamBody } from "../../kernel/multipart";
import { authorizedProject } from "../../kernel/lookup";
import { decodeQuery, p, validateParams, withPathParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { packageFileRecord } from "../../entities/packages";
import * as q from "../queries";
import { GENERIC_MAX_FILE_BYTES, streamFile } from "../services";

/**
 * The generic package registry (lib/api/generic_packages.rb): files uploaded with `PUT` (the request
 * body is the file) and downloaded with `GET`. Parameters come from the path and the query string only,
 * so the body is never parsed.
 */
export const genericPackagesRoutes = router();

/**
 * Deliberate difference from GitLab: its route (`:package_name/*package_version/:file_name`) globs the
 * version, so a literal `/` in it reaches the endpoint and is `package_version is invalid`; here the
 * version is one segment (the app's trie router cannot match a many-segment parameter followed by
 * another parameter), so such a path is no route (404). An encoded `%2F` is refused by the rule alike.
 */
const PATH = "/projects/:id/packages/generic/:package_name/:package_version/:file_name";

/** Gitlab::Regex `generic_package_name_regex` and `generic_package_file_name_regex` (`maven_file_name_regex`). */
const NAME = /^[A-Za-z0-9._\-+]+$/;
/**
 * Gitlab::Regex `generic_package_version_regex`, which is `maven_version_regex` in GitLab 15.4:
 * `\A(\.?[\w\+-]+\.?)+\z`. That pattern backtracks exponentially on a long refused value, so it is
 * written here as the same language without nested repetition: runs of word characters, `+` and
 * `-`, separated by one or two dots, with at most one dot before the first run and after the last.
 */
const VERSION = /^\.?[\w+-]+(?:\.{1,2}[\w+-]+)*\.?$/;

/** Grape's `regexp:` validator: a value the pattern refuses is `<param> is invalid`. */
const matching = (pattern: RegExp) => p.string().refine((value) => pattern.test(value), { message: "is invalid" });

/** The path's parameters, validated with the query's in Grape's declaration order. */
const PathParams = { package_name: matching(NAME), package_version: matching(VERSION), file_name: matching(NAME) };
const Upload = z.object({ ...PathParams, status: p.oneOf("default", "hidden").optional(), select: p.oneOf("package_file").optional() });
const Download = z.object(PathParams);

/** Parameters come from the path and the query string only: the body is the file, never parsed. */
function readPathAndQuery<S extends z.ZodType>(c: Ctx, schema: S): z.output<S> {
  return validateParams(withPathParams(c, decodeQuery(new URL(c.req.url).search.slice(1))), schema);
}

/** PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name (lib/api/generic_packages.rb) */
// `status` and `select` come from the query string: the request body is the file itself.
genericPackagesRoutes.put(PATH, { params: Upload, description: "`status` and `select` are query parameters: the body is the file." }, async (c) => {
  const actor = requireUserOrDeployToken(c);
  const params = readPathAndQuery(c, Upload);
  const project = await authorizedProject(c, "create_package");
  // The body streams into R2 (docs/uploads.md); the row is written once R2 completed the object, and
  // a failure on the way leaves neither.
  const { writer, stored } = await streamFile(c.env.BLOBS, project.id, params.file_name, streamBody(c, GENERIC_MAX_FILE_BYTES));
  await writer.close();
  const file = await q
    .addGenericFile(c.var.db(), project.id, actor?.user.id ?? null, { name: params.package_name, version: params.package_version, status: params.status ?? "default", pipelineId: actor?.job?.pipelineId ?? null }, stored)
    .catch(async (error) => {
      await c.env.BLOBS.delete(stored.fileStore);
      throw error;
    });
  if (params.select === "package_file") {
    const downloadPath = `/api/v4/projects/${project.id}/packages/generic/${encodeURIComponent(params.package_name)}/${encodeURIComponent(params.package_version)}/${encodeURIComponent(params.file_name)}`;
    return present(c, { ...file, downloadPath }, packageFileRecord);
  }
  return c.json({ message: "201 Created" }, 201); // `created!`
});

/** GET /projects/:id/packages/generic/:package_name/:package_version/:file_name (lib/api/generic_packages.rb) */
genericPackagesRoutes.get(PATH, { params: Download }, async (c) => {
  const params = readPathAndQuery(c, Download);
  const project = await authorizedProject(c, "read_package");
  const file = await q.findGenericFile(c.var.db(), project.id, params.package_name, params.package_version, params.file_name);
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
