import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * Parameter schemas of the package lists (lib/api/project_packages.rb, group_packages.rb), with their
 * defaults: the list queries read them as declared (Packages::PackagesFinder's and
 * GroupPackagesFinder's params).
 */

const TYPES = ["conan", "maven", "npm", "pypi", "composer", "nuget", "helm", "terraform_module", "golang", "generic", "rubygems", "debian"] as const;
const listShape = {
  order_by: p.oneOf("created_at", "name", "version", "type").default("created_at"),
  sort: p.oneOf("asc", "desc").default("asc"),
  package_type: p.oneOf(...TYPES).optional(),
  package_name: p.string().optional(),
  include_versionless: p.bool().default(false),
  status: p.oneOf("default", "hidden", "processing", "error", "pending_destruction").optional(),
};

/** `GET /projects/:id/packages` */
export const ListProjectPackages = pageParams.extend(listShape);

/** `GET /groups/:id/packages`: `project_path` is an order too, and `exclude_subgroups`. */
export const ListGroupPackages = pageParams.extend({
  ...listShape,
  order_by: p.oneOf("created_at", "name", "version", "type", "project_path").default("created_at"),
  exclude_subgroups: p.bool().default(false),
});

/** What the list queries read: the declared parameters of either list. */
export type ListParams = z.output<typeof ListProjectPackages> | z.output<typeof ListGroupPackages>;
