import * as z from "zod";
import { requireUser } from "../kernel/auth";
import { notFound } from "../kernel/errors";
import { findNamespace } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { namespace, namespaceExistence, Namespace, NamespaceExistence } from "../entities/namespaces";
import * as q from "./queries";

/** The namespaces API (lib/api/namespaces.rb): every endpoint needs a signed-in caller (`authenticate!`). */
export const namespacesRoutes = router();

const ListNamespaces = pageParams.extend({ search: p.string().optional(), owned_only: p.bool().optional() });

/** GET /namespaces (lib/api/namespaces.rb) */
namespacesRoutes.get("/namespaces", { params: ListNamespaces, response: [Namespace] }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, ListNamespaces);
  const page = pageOf(params);
  const { rows, total } = await q.listNamespaces(c.var.db(), actor, { search: params.search, ownedOnly: params.owned_only === true }, page);
  paginate(c, page, total);
  return present(c, rows, namespace);
});

const NamespaceExists = z.object({ namespace: p.string(), parent_id: p.int().optional() });

/** GET /namespaces/:namespace/exists (lib/api/namespaces.rb): `{exists, suggests}`. */
namespacesRoutes.get("/namespaces/:namespace/exists", { params: NamespaceExists, response: NamespaceExistence }, async (c) => {
  requireUser(c);
  const params = await readParamsWithPath(c, NamespaceExists);
  const db = c.var.db();
  const exists = await q.pathExists(db, params.namespace, params.parent_id ?? null);
  if (!exists) return present(c, { exists, suggests: [] }, namespaceExistence);
  const base = cleanPath(params.namespace);
  const taken = await q.takenLike(db, base);
  return present(c, { exists, suggests: [uniquify(base, taken)] }, namespaceExistence);
});

/** GET /namespaces/:id (lib/api/namespaces.rb): by id or full path. */
namespacesRoutes.get("/namespaces/:id", { response: Namespace }, async (c) => {
  requireUser(c);
  const found = await findNamespace(c, c.req.param("id")!);
  const row = await q.loadNamespace(c.var.db(), c.var.actor, found.id);
  if (!row) throw notFound("Namespace");
  return present(c, row, namespace);
});

/** Namespace.clean_path (app/models/namespace.rb) without its uniqueness step. */
export function cleanPath(input: string): string {
  let path = input.replace(/@.*$/s, "").replace(/[^a-zA-Z0-9_\-.]/g, "");
  for (let before = ""; before !== path; ) {
    before = path;
    for (const suffix of [".atom", ".git", "."]) if (path.endsWith(suffix)) path = path.slice(0, -suffix.length);
  }
  path = path.replace(/^-+/, "");
  return path.trim() === "" ? "blank" : path;
}

/** Uniquify#string: `base`, else `base1`, `base2`… the first one not taken. */
function uniquify(base: string, taken: Set<string>): string {
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? base : `${base}${i}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
