import * as z from "zod";
import { authorize, type ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { contributors, isOid, readObject, repoOf, toBase64 } from "../../shared/git";
import { detectContentType } from "../content_type";
import { blob, contributor, Blob, ContributorEntity } from "../../entities/repository";

/** Blobs and contributors (lib/api/repositories.rb, GitLab 15.4), behind `authorize! :download_code`. */
export const blobRoutes = router();

/**
 * `assign_blob_vars!`: Gitlab::Git::Blob.raw(repository, sha); anything that is not a blob of this
 * repository is `404 Blob Not Found`. Differs from GitLab: `:sha` must be the full 40-character id
 * (Gitaly also resolves short ids and `<rev>:<path>`).
 */
async function findBlob(c: Ctx, project: ProjectWithAccess): Promise<{ oid: string; content: Uint8Array }> {
  const sha = c.req.param("sha")!.toLowerCase();
  const object = isOid(sha) ? await readObject(c.var.db(), repoOf(project).poolId, sha) : null;
  if (!object || object.type !== "blob") throw notFound("Blob");
  return { oid: object.oid, content: object.body };
}

/** GET /projects/:id/repository/blobs/:sha (lib/api/repositories.rb) */
blobRoutes.get("/projects/:id/repository/blobs/:sha", { response: Blob }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const found = await findBlob(c, project);
  return present(c, { size: found.content.length, content: toBase64(found.content), sha: found.oid }, blob);
});

/**
 * GET /projects/:id/repository/blobs/:sha/raw (lib/api/repositories.rb, `send_git_blob`): the bytes,
 * typed as Workhorse types them; a blob read by id has no name, so the disposition carries none.
 */
blobRoutes.get("/projects/:id/repository/blobs/:sha/raw", async (c) => {
  const project = await authorizedProject(c, "download_code");
  const found = await findBlob(c, project);
  const type = detectContentType(found.content);
  return c.body(new Uint8Array(found.content), 200, {
    "Content-Type": type,
    "Content-Disposition": /^(image\/(?!svg\+xml)|video\/|audio\/|text\/plain|application\/pdf)/.test(type) ? "inline" : "attachment",
    // `no_cache_headers` (lib/api/helpers/headers_helpers.rb), as Rails normalises them.
    "Cache-Control": "max-age=0, private, must-revalidate, no-store, no-cache",
    Pragma: "no-cache",
    Expires: "Fri, 01 Jan 1990 00:00:00 GMT",
  });
});

// `ref` came in GitLab 16; 15.4 always reads the default branch. Accepting it costs nothing.
const ListContributors = pageParams.extend({
  ref: p.string().optional().describe("The name of a repository branch or tag, if not given the default branch is used"),
  order_by: p.oneOf("email", "name", "commits").optional().describe("Return contributors ordered by `name` or `email` or `commits`"),
  sort: p.oneOf("asc", "desc").optional().describe("Sort by asc (ascending) or desc (descending)"),
});

/**
 * GET /projects/:id/repository/contributors (lib/api/repositories.rb, Repository#contributors): an
 * array paginated with totals (`Kaminari.paginate_array`); an empty repository lists nothing.
 */
blobRoutes.get("/projects/:id/repository/contributors", { params: ListContributors, response: [ContributorEntity] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, ListContributors);
  const rev = params.ref || project.defaultBranch;
  const list = rev ? await contributors(c.var.db(), repoOf(project), rev) : [];
  // `rescue StandardError; not_found!`: a ref that does not resolve.
  if (list === null) throw notFound();
  const orderBy = params.order_by ?? "commits";
  const direction = params.sort === "desc" ? -1 : 1;
  // Commit.order_by compares with Ruby's `<=>` (strings bytewise); JS's sort is stable where Ruby's is not.
  const key = (x: (typeof list)[number]) => x[orderBy];
  const sorted = [...list].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * direction;
  });
  const page = pageOf(params);
  paginate(c, page, sorted.length);
  return present(c, sorted.slice(page.offset, page.offset + page.limit), contributor);
});
