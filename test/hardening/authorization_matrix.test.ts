import { beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../helpers/client";
import { unique, world, type TestProject, type World } from "../helpers/world";
import { ROLES, roleClients, VISIBILITIES, type Role, type Vis } from "./roles";

/**
 * Roles × project visibility × endpoints, every expected status from ONE table, following
 * app/policies/project_policy.rb: what a caller may not read is 404; readable but not permitted is 403;
 * an anonymous write is 401 (`authenticate_non_get!`).
 */
const LEVEL: Record<Role, number> = { anonymous: 0, "non-member": 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50, admin: 60 };

type Endpoint = {
  name: string;
  method: "GET" | "POST" | "PUT";
  path: (p: TestProject) => string;
  body?: () => Record<string, unknown>;
  /** The lowest member role allowed. */
  min: Exclude<Role, "anonymous" | "non-member" | "admin">;
  /** Whoever reads the project may do it too (ProjectPolicy `public_access` / `guest_access` of non-members). */
  readers?: boolean;
  /** `before { authenticate! }`: anonymous reads are 401 even on public projects. */
  signedIn?: boolean;
  ok: number;
};

/** THE table. */
const ENDPOINTS: Endpoint[] = [
  { name: "read project", method: "GET", path: (p) => `/projects/${p.id}`, min: "guest", readers: true, ok: 200 },
  { name: "edit project", method: "PUT", path: (p) => `/projects/${p.id}`, body: () => ({ description: "d" }), min: "maintainer", ok: 200 },
  { name: "list issues", method: "GET", path: (p) => `/projects/${p.id}/issues`, min: "guest", readers: true, ok: 200 },
  // Non-members have guest access to public and internal projects: they open issues there.
  { name: "create issue", method: "POST", path: (p) => `/projects/${p.id}/issues`, body: () => ({ title: "t" }), min: "guest", readers: true, ok: 201 },
  // A guest of a private project has no read_merge_request (reporter); readers of public/internal do.
  { name: "list merge requests", method: "GET", path: (p) => `/projects/${p.id}/merge_requests`, min: "reporter", readers: true, ok: 200 },
  {
    name: "create merge request",
    method: "POST",
    path: (p) => `/projects/${p.id}/merge_requests`,
    body: () => ({ title: "t", source_branch: unique("b"), target_branch: "main" }),
    min: "developer",
    ok: 201,
  },
  { name: "list labels", method: "GET", path: (p) => `/projects/${p.id}/labels`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "create label", method: "POST", path: (p) => `/projects/${p.id}/labels`, body: () => ({ name: unique("l"), color: "#ff0000" }), min: "reporter", ok: 201 },
  { name: "list milestones", method: "GET", path: (p) => `/projects/${p.id}/milestones`, min: "guest", readers: true, signedIn: true, ok: 200 },
  { name: "create milestone", method: "POST", path: (p) => `/projects/${p.id}/milestones`, body: () => ({ title: unique("m") }), min: "reporter", ok: 201 },
  { name: "list snippets", method: "GET", path: (p) => `/projects/${p.id}/snippets`, min: "guest", readers: true, ok: 200 },
  {
    name: "create snippet",
    method: "POST",
    path: (p) => `/projects/${p.id}/snippets`,
    body: () => ({ title: "s", file_name: "a.txt", content: "x", visibility: "private" }),
    min: "reporter",
    ok: 201,
  },
  // lib/api/members.rb and environments.rb: `before { authenticate! }`.
  { name: "list members", method: "GET", path: (p) => `/projects/${p.id}/members`, min: "guest", readers: true, signedIn: true, ok: 200 },
  // ee project_policy: feature flags are for developers, even on public projects.
  { name: "list feature flags", method: "GET", path: (p) => `/projects/${p.id}/feature_flags`, min: "developer", ok: 200 },
  { name: "create feature flag", method: "POST", path: (p) => `/projects/${p.id}/feature_flags`, body: () => ({ name: unique("f").replace(/-/g, "_") }), min: "developer", ok: 201 },
  { name: "list environments", method: "GET", path: (p) => `/projects/${p.id}/environments`, min: "reporter", signedIn: true, ok: 200 },
  { name: "create environment", method: "POST", path: (p) => `/projects/${p.id}/environments`, body: () => ({ name: unique("env") }), min: "developer", ok: 201 },
  { name: "list badges", method: "GET", path: (p) => `/projects/${p.id}/badges`, min: "guest", readers: true, ok: 200 },
  {
    name: "create badge",
    method: "POST",
    path: (p) => `/projects/${p.id}/badges`,
    body: () => ({ link_url: "https://example.com/x", image_url: "https://example.com/b.svg" }),
    min: "maintainer",
    ok: 201,
  },
];

/** Who can see the project at all: otherwise 404 (anonymous writes are 401 before any lookup). */
function seesProject(role: Role, vis: Vis): boolean {
  if (LEVEL[role] >= 10) return true;
  return vis === "public" || (vis === "internal" && role === "non-member");
}

function expected(e: Endpoint, role: Role, vis: Vis): number {
  const write = e.method !== "GET";
  if (role === "anonymous" && (write || e.signedIn)) return 401;
  if (!seesProject(role, vis)) return 404;
  if (role === "admin" || LEVEL[role] >= LEVEL[e.min]) return e.ok;
  // Readers through visibility: public for all, internal for the signed in (guests of a public project too).
  if (e.readers && (vis === "public" || (vis === "internal" && role !== "anonymous"))) return e.ok;
  return 403;
}

describe("authorization matrix: roles × visibility × endpoints", () => {
  let w: World;
  const clients = {} as Record<Role, Client>;
  const projects = {} as Record<Vis, TestProject>;

  beforeAll(async () => {
    w = await world();
    const roles = await roleClients(w);
    const { guest, reporter, developer, maintainer, owner } = roles.users;
    Object.assign(clients, roles.clients);
    for (const vis of VISIBILITIES)
      projects[vis] = await w.project({ visibility: vis, owner, guests: [guest], reporters: [reporter], developers: [developer], maintainers: [maintainer] });
  });

  it(`${ROLES.length} roles × ${VISIBILITIES.length} visibilities × ${ENDPOINTS.length} endpoints = ${ROLES.length * VISIBILITIES.length * ENDPOINTS.length} cells`, { timeout: 300_000 }, async () => {
    const cells = ENDPOINTS.flatMap((e) => VISIBILITIES.flatMap((vis) => ROLES.map((role) => ({ e, vis, role }))));
    const actual: string[] = [];
    const wanted: string[] = [];
    for (let i = 0; i < cells.length; i += 8) {
      await Promise.all(
        cells.slice(i, i + 8).map(async ({ e, vis, role }, j) => {
          const api = clients[role];
          const path = e.path(projects[vis]);
          const res = e.method === "GET" ? await api.get(path) : e.method === "PUT" ? await api.put(path, { json: e.body!() }) : await api.post(path, { json: e.body!() });
          await res.arrayBuffer();
          actual[i + j] = `${e.name} | ${vis} | ${role}: ${res.status}`;
          wanted[i + j] = `${e.name} | ${vis} | ${role}: ${expected(e, role, vis)}`;
        }),
      );
    }
    expect(actual).toEqual(wanted);
  });
});
