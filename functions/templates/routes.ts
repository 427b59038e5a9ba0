import * as z from "zod";
import type { Ctx } from "../kernel/env";
import { notFound, onNotFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pageOf, paginate } from "../kernel/pagination";
import { readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { License, license, Template, template, TemplatesList, templatesList, type FileTemplate, type LicenseTemplate } from "../entities/templates";
import { FILE_TEMPLATE_TYPES, readCatalog, resolveLicense, type FileTemplateType } from "./catalog";
import { ListLicenses, ListProjectTemplates, ListTemplates, OneLicense, OneProjectTemplate, OneTemplate } from "./params";
import { findRepositoryTemplate, listRepositoryTemplates, REPOSITORY_TEMPLATE_DIRS, type RepositoryTemplateType } from "./repository";

/**
 * File templates (lib/api/templates.rb, lib/api/project_templates.rb, GitLab 15.4): licenses, .gitignore
 * files, CI/CD YAML files and Dockerfiles for the whole instance, and the same with a project's issue
 * and merge request templates per project. Anyone may read them; the project routes need a readable
 * project. The vendored catalogs are static assets (catalog.ts).
 *
 * Differs from GitLab: no instance or group file template repositories (EE's custom templates), so
 * `source_template_project_id` chooses nothing, and no templates inherited from groups.
 */
export const templatesRoutes = router();

/** The names of `type` templates, `key` and `name` (Entities::TemplatesList), in GitLab's order. */
const pageOfList = <T>(c: Ctx, rows: T[], params: { page?: number; per_page?: number }): T[] => {
  const page = pageOf(params);
  paginate(c, page, rows.length);
  return rows.slice(page.offset, page.offset + page.limit);
};

/** LicenseTemplateFinder's `popular`: true the popular ones, false the others, absent all. */
const licensesOf = (all: LicenseTemplate[], popular?: boolean) => (popular === undefined ? all : all.filter((l) => l.popular === popular));

/** `resolve!` with the request's values: `fullname` or the caller's name. */
const resolvedFor = (c: Ctx, found: LicenseTemplate, params: { project?: string; fullname?: string }) =>
  resolveLicense(found, { projectName: params.project?.trim() ? params.project : null, fullname: params.fullname?.trim() ? params.fullname : (c.var.actor?.user.name ?? null), now: new Date() });

/** GET /templates/licenses */
templatesRoutes.get("/templates/licenses", { params: ListLicenses, response: [License], paginated: true }, async (c) => {
  const params = await readParams(c, ListLicenses);
  const all = await readCatalog(c, "licenses");
  if (!all) return onNotFound(c);
  return present(c, pageOfList(c, licensesOf(all, params.popular), params), license);
});

/** GET /templates/licenses/:name (the name as GitLab's route requires it: word characters, `.` and `-`). */
templatesRoutes.get("/templates/licenses/:name{[\\w.-]+}", { params: OneLicense, response: License }, async (c) => {
  const params = await readParamsWithPath(c, OneLicense);
  const all = await readCatalog(c, "licenses");
  if (!all) return onNotFound(c);
  const found = all.find((l) => l.key === params.name);
  if (!found) throw notFound("License");
  return present(c, resolvedFor(c, found, params), license);
});

for (const type of FILE_TEMPLATE_TYPES) {
  // `not_found!(template_type.to_s.singularize)`: `404 gitignore Not Found`, `404 gitlab_ci_yml Not Found`…
  const singular = type.slice(0, -1);

  /** GET /templates/:type */
  templatesRoutes.get(`/templates/${type}`, { params: ListTemplates, response: [TemplatesList], paginated: true }, async (c) => {
    const params = await readParams(c, ListTemplates);
    const all = await readCatalog(c, type);
    if (!all) return onNotFound(c);
    return present(c, pageOfList(c, all, params), templatesList);
  });

  /** GET /templates/:type/:name */
  templatesRoutes.get(`/templates/${type}/:name{[\\w.-]+}`, { params: OneTemplate, response: Template }, async (c) => {
    const params = await readParamsWithPath(c, OneTemplate);
    const all = await readCatalog(c, type);
    if (!all) return onNotFound(c);
    const found = all.find((t) => t.key === params.name);
    if (!found) throw notFound(singular);
    return present(c, found, template);
  });
}

const isRepositoryType = (type: string): type is RepositoryTemplateType => type in REPOSITORY_TEMPLATE_DIRS;

/**
 * `TemplateFinder.all_template_names(project, type).values.flatten`: the names grouped by category, the
 * categories in the order their first template comes.
 */
function byCategory<T extends { category: string }>(rows: T[]): T[] {
  const groups = new Map<string, T[]>();
  for (const row of rows) (groups.get(row.category) ?? groups.set(row.category, []).get(row.category)!).push(row);
  return [...groups.values()].flat();
}

/** GET /projects/:id/templates/:type */
templatesRoutes.get("/projects/:id/templates/:type", { params: ListProjectTemplates, response: [TemplatesList], paginated: true }, async (c) => {
  const params = await readParamsWithPath(c, ListProjectTemplates);
  const project = await findProject(c, c.req.param("id"));
  let names: { key: string; name: string; category: string }[];
  if (isRepositoryType(params.type)) {
    names = await listRepositoryTemplates(c.var.db(), project, params.type);
  } else {
    const all = params.type === "licenses" ? await readCatalog(c, "licenses") : await readCatalog(c, params.type as FileTemplateType);
    if (!all) return onNotFound(c);
    names = all.map((t) => ({ key: t.key, name: t.name, category: "category" in t ? t.category : t.popular ? "Popular" : "Other" }));
  }
  return present(c, pageOfList(c, byCategory(names), params), templatesList);
});

/** GET /projects/:id/templates/:type/:name (the name as GitLab's route requires it: word characters, `%`, `.`, `+` and `-`). */
templatesRoutes.get("/projects/:id/templates/:type/:name{[\\w%.+-]+}", { params: OneProjectTemplate, response: z.union([License, Template]) }, async (c) => {
  const params = await readParamsWithPath(c, OneProjectTemplate);
  const project = await findProject(c, c.req.param("id"));
  if (isRepositoryType(params.type)) {
    const found = await findRepositoryTemplate(c.var.db(), project, params.type, params.name);
    if (!found) throw notFound("Template");
    return present(c, found, template);
  }
  if (params.type === "licenses") {
    const all = await readCatalog(c, "licenses");
    if (!all) return onNotFound(c);
    const found = all.find((l) => l.key === params.name);
    if (!found) throw notFound("Template");
    return present(c, resolvedFor(c, found, params), license);
  }
  const all = await readCatalog(c, params.type as FileTemplateType);
  if (!all) return onNotFound(c);
  const found: FileTemplate | undefined = all.find((t) => t.key === params.name);
  if (!found) throw notFound("Template");
  return present(c, found, template);
});
