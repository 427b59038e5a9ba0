import * as z from "zod";
import { allowed, allowedOnGroup, authorize, type ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, notFound, paramsError } from "../../kernel/errors";
import { authorizedGroup, authorizedProject, findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import {
  RegistryRepository,
  RegistryTag,
  RegistryTagDetails,
  registryRepository,
  registryTag,
  registryTagDetails,
  type RegistryRepositoryRow,
} from "../../entities/container_registry";
import * as q from "../queries";
import { cleanupRepository, durationMs, wholeName } from "../cleanup";

/**
 * The registry's REST API (lib/api/project_container_repositories.rb, group_container_repositories.rb,
 * container_repositories.rb). Differs from GitLab: deleting a repository or tags in bulk happens at once
 * instead of in a background worker (the answers stay 202), so `status` is always null.
 */
export const registryRepositoriesRoutes = router();

const registryHost = (c: Ctx) => new URL(baseUrl(c)).host;
const canAdmin = (c: Ctx, project: ProjectWithAccess) => () => allowed(c.var.actor, "admin_container_image", project);

function repositoryId(c: Ctx): number {
  const id = c.req.param("repository_id") ?? c.req.param("id")!;
  if (!/^\d+$/.test(id) || Number(id) > 2147483647) throw paramsError(`${c.req.param("repository_id") !== undefined ? "repository_id" : "id"} is invalid`);
  return Number(id);
}

/** `repository`: the project's repository or `404 Repository Not Found`. */
async function findRepository(c: Ctx, project: ProjectWithAccess, withTags = false): Promise<RegistryRepositoryRow> {
  const found = await q.findRepositoryRow(c.var.db(), repositoryId(c), project.id, withTags);
  if (!found) throw notFound("Repository");
  return found;
}

const ListRepositories = pageParams.extend({ tags: p.bool().default(false), tags_count: p.bool().default(false) });

/** GET /projects/:id/registry/repositories (lib/api/project_container_repositories.rb) */
registryRepositoriesRoutes.get("/projects/:id/registry/repositories", { params: ListRepositories, paginated: true, response: [RegistryRepository] }, async (c) => {
  const params = await readParams(c, ListRepositories);
  const project = await authorizedProject(c, "read_container_image");
  const page = pageOf(params);
  const list = await q.listProjectRepositories(c.var.db(), project.id, page, params.tags);
  paginate(c, page, list.total);
  return present(c, list.rows, registryRepository, { registryHost: registryHost(c), canAdmin: canAdmin(c, project), tags: params.tags, tagsCount: params.tags_count });
});

/** GET /groups/:id/registry/repositories (lib/api/group_container_repositories.rb): repositories of the group's projects the caller reads. */
registryRepositoriesRoutes.get("/groups/:id/registry/repositories", { params: ListRepositories, paginated: true, response: [RegistryRepository] }, async (c) => {
  const params = await readParams(c, ListRepositories);
  const group = await authorizedGroup(c, "read_group");
  // GroupPolicy `read_container_image`: members (guest and up) of the group, or readers of a public group.
  if (!allowedOnGroup(c.var.actor, "read_group", group)) throw forbidden();
  const page = pageOf(params);
  const list = await q.listGroupRepositories(c.var.db(), group.id, c.var.actor, page, params.tags);
  paginate(c, page, list.total);
  return present(c, list.rows, registryRepository, { registryHost: registryHost(c), tags: params.tags, tagsCount: params.tags_count });
});

const OneRepository = z.object({ tags: p.bool().default(false), tags_count: p.bool().default(false), size: p.bool().default(false) });

/** GET /registry/repositories/:id (lib/api/container_repositories.rb): by global id, readable as its project's images are. */
registryRepositoriesRoutes.get("/registry/repositories/:id", { params: OneRepository, response: RegistryRepository }, async (c) => {
  const params = await readParams(c, OneRepository);
  const found = await q.findRepositoryRow(c.var.db(), repositoryId(c), null, params.tags);
  if (!found) throw notFound("Repository");
  const project = await findProject(c, String(found.projectId)).catch(() => null);
  if (!project) throw notFound("Repository");
  authorize(c, "read_container_image", project);
  return present(c, found, registryRepository, { registryHost: registryHost(c), canAdmin: canAdmin(c, project), tags: params.tags, tagsCount: params.tags_count, size: params.size });
});

/**
 * DELETE /projects/:id/registry/repositories/:repository_id: maintainers; 202. The tags, manifests and
 * links go at once; the blobs no other repository links are deleted by the garbage collector (queued by
 * the delete).
 */
registryRepositoriesRoutes.delete("/projects/:id/registry/repositories/:repository_id", async (c) => {
  const project = await authorizedProject(c, "admin_container_image");
  const repo = await findRepository(c, project);
  await q.deleteRepository(c.var.db(), repo.id);
  return c.body(null, 202);
});

/** GET /projects/:id/registry/repositories/:repository_id/tags, in name order. */
registryRepositoriesRoutes.get("/projects/:id/registry/repositories/:repository_id/tags", { params: pageParams, paginated: true, response: [RegistryTag] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await authorizedProject(c, "read_container_image");
  const repo = await findRepository(c, project, true);
  const page = pageOf(params);
  paginate(c, page, repo.tags.length);
  const rows = repo.tags.slice(page.offset, page.offset + page.limit).map((tag) => ({ repository: repo, tag }));
  return present(c, rows, registryTag, { registryHost: registryHost(c) });
});

/** GET /projects/:id/registry/repositories/:repository_id/tags/:tag_name */
registryRepositoriesRoutes.get("/projects/:id/registry/repositories/:repository_id/tags/:tag_name", { response: RegistryTagDetails }, async (c) => {
  const project = await authorizedProject(c, "read_container_image");
  const repo = await findRepository(c, project, true);
  const tag = repo.tags.find((t) => t.name === c.req.param("tag_name"));
  if (!tag) throw notFound("Tag");
  return present(c, { repository: repo, tag }, registryTagDetails, { registryHost: registryHost(c) });
});

/** DELETE /projects/:id/registry/repositories/:repository_id/tags/:tag_name: 200 with an empty body. */
registryRepositoriesRoutes.delete("/projects/:id/registry/repositories/:repository_id/tags/:tag_name", async (c) => {
  const project = await authorizedProject(c, "destroy_container_image");
  const repo = await findRepository(c, project);
  if (!(await q.deleteTags(c.var.db(), repo.id, [c.req.param("tag_name")!]))) throw notFound("Tag");
  return c.body(null, 200);
});

const BulkDelete = z.object({
  name_regex_delete: p.string().optional(),
  name_regex: p.string().optional(),
  name_regex_keep: p.string().optional(),
  keep_n: p.int().optional(),
  older_than: p.string().optional(),
});

/**
 * DELETE /projects/:id/registry/repositories/:repository_id/tags (Projects::ContainerRepository::
 * CleanupTagsService): tags matching `name_regex_delete`, except those matching `name_regex_keep`, the
 * `keep_n` newest and those newer than `older_than`; never `latest` (cleanup.ts). Maintainers
 * (`admin_container_image`); 202. Differs from GitLab: done before answering, not by a worker.
 */
registryRepositoriesRoutes.delete("/projects/:id/registry/repositories/:repository_id/tags", { params: BulkDelete }, async (c) => {
  const params = await readParams(c, BulkDelete);
  // Grape's `untrusted_regexp` and `at_least_one_of` validators run before the endpoint.
  for (const key of ["name_regex_delete", "name_regex", "name_regex_keep"] as const) {
    if (params[key] !== undefined && !wholeName(params[key])) throw paramsError(`${key} is an invalid regexp`);
  }
  const pattern = params.name_regex_delete ?? params.name_regex;
  if (pattern === undefined) throw paramsError("name_regex, name_regex_delete are missing, at least one parameter must be provided");
  const project = await authorizedProject(c, "admin_container_image");
  if (params.older_than !== undefined && durationMs(params.older_than) === null) throw apiError("older_than is invalid", 400);
  const repo = await findRepository(c, project, true);
  await cleanupRepository(c.var.db(), repo, { nameRegexDelete: pattern, nameRegexKeep: params.name_regex_keep ?? null, keepN: params.keep_n ?? null, olderThan: params.older_than ?? null }, new Date());
  return c.body(null, 202);
});
