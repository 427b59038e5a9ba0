import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { recordNotFound, validation } from "../kernel/errors";
import { findGroup, findProject, findUser } from "../kernel/lookup";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { customAttribute } from "../entities/custom_attributes";
import { CustomAttribute } from "../entities/users";
import { SAML_GROUPS_ATTRIBUTE, syncSamlUser } from "../saml_group_links/public";
import * as q from "./queries";

/**
 * Custom attributes of users, groups and projects (lib/api/custom_attributes_endpoints.rb, included
 * by lib/api/users.rb, groups.rb and projects.rb): administrators only (`before { authenticated_as_admin! }`).
 * The users resource opens its GETs to `read_user` tokens.
 */
export const customAttributesRoutes = router();
/** lib/api/users.rb allows `read_user` tokens on its GETs; groups and projects do not. */
const userAttributesRoutes = router({ readUserScope: true });
const resourceAttributesRoutes = router();

const KIND_OF_SEGMENT = { users: "user", groups: "group", projects: "project" } as const;
type Segment = keyof typeof KIND_OF_SEGMENT;

/** `find_user` / `find_group!` / `find_project!` for the resource the path names (404 `User`/`Group`/`Project`). */
async function findOwner(c: Ctx, segment: Segment): Promise<q.Owner> {
  const id = c.req.param("id")!;
  const kind = KIND_OF_SEGMENT[segment];
  if (kind === "user") return { kind, id: (await findUser(c, id)).id };
  if (kind === "group") return { kind, id: (await findGroup(c, id)).id };
  return { kind, id: (await findProject(c, id)).id };
}

const Key = z.object({ key: p.string() });
const SetValue = z.object({ key: p.string(), value: p.string() });

for (const segment of Object.keys(KIND_OF_SEGMENT) as Segment[]) {
  // Users take digits only (`requirements: { id: /[0-9]*/ }`); groups and projects an id or a path.
  const base = segment === "users" ? `/users/:id{[0-9]+}` : `/${segment}/:id`;
  const routes = segment === "users" ? userAttributesRoutes : resourceAttributesRoutes;

  /** GET /{users,groups,projects}/:id/custom_attributes: every attribute, unpaginated. */
  routes.get(`${base}/custom_attributes`, { response: [CustomAttribute], paginated: false }, async (c) => {
    requireAdmin(c);
    const owner = await findOwner(c, segment);
    return present(c, await q.listAttributes(c.var.db(), owner), customAttribute);
  });

  /** GET …/custom_attributes/:key: `find_by!(key:)`, so a missing key is `404 Not found`. */
  routes.get(`${base}/custom_attributes/:key`, { params: Key, response: CustomAttribute }, async (c) => {
    requireAdmin(c);
    const params = await readParamsWithPath(c, Key);
    const owner = await findOwner(c, segment);
    const attribute = await q.findAttribute(c.var.db(), owner, params.key);
    if (!attribute) throw recordNotFound();
    return present(c, attribute, customAttribute);
  });

  /** PUT …/custom_attributes/:key: creates or changes the value (200). */
  routes.put(`${base}/custom_attributes/:key`, { params: SetValue, response: CustomAttribute }, async (c) => {
    requireAdmin(c);
    const params = await readParamsWithPath(c, SetValue);
    const owner = await findOwner(c, segment);
    // CustomAttribute `validates :value, presence: true`.
    if (params.value.trim() === "") throw validation({ value: ["can't be blank"] });
    const attribute = await q.upsertAttribute(c.var.db(), owner, params.key, params.value);
    // A SAML user's groups changed: the SAML group links' memberships follow (docs/directory_and_imports.md).
    if (owner.kind === "user" && params.key === SAML_GROUPS_ATTRIBUTE) await syncSamlUser(c.var.db(), owner.id);
    return present(c, attribute, customAttribute);
  });

  /** DELETE …/custom_attributes/:key: 204; a missing key is `404 Not found`. */
  routes.delete(`${base}/custom_attributes/:key`, { params: Key }, async (c) => {
    requireAdmin(c);
    const params = await readParamsWithPath(c, Key);
    const owner = await findOwner(c, segment);
    if (!(await q.deleteAttribute(c.var.db(), owner, params.key))) throw recordNotFound();
    if (owner.kind === "user" && params.key === SAML_GROUPS_ATTRIBUTE) await syncSamlUser(c.var.db(), owner.id);
    return c.body(null, 204);
  });
}

// Hono copies a sub-app's routes when it is mounted: mount after registering.
customAttributesRoutes.route("/", userAttributesRoutes);
customAttributesRoutes.route("/", resourceAttributesRoutes);
