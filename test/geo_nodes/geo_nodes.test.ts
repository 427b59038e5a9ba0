import { beforeEach, describe, expect, it } from "vitest";
import { geoNodes } from "../../db/schema";
import { BASE, statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";

// Geo nodes are instance-wide and only this file writes them: every test starts from an empty table.
// This instance's own node is the one named after its external URL (`${BASE}/`).
const OWN = `${BASE}/`;
type Node = Record<string, unknown> & { id: number };

let w: World;
beforeEach(async () => {
  w = await world();
  await w.db((db) => db.delete(geoNodes));
});

const create = async (json: Record<string, unknown>) => {
  const res = await w.root.post("/geo_nodes", { json });
  expect(res.status).toBe(201);
  return (await res.json()) as Node;
};

describe("POST /geo_nodes", () => {
  it("creates a node with GitLab's defaults; internal_url falls back to url", async () => {
    const node = await create({ name: "secondary-1", url: "https://secondary.example.com" });
    expect(node).toMatchObject({
      name: "secondary-1",
      url: "https://secondary.example.com/",
      internal_url: "https://secondary.example.com/",
      primary: false,
      enabled: true,
      current: false,
      files_max_capacity: 10,
      repos_max_capacity: 25,
      verification_max_capacity: 100,
      container_repositories_max_capacity: 10,
      sync_object_storage: false,
      selective_sync_type: null,
      selective_sync_shards: [],
      selective_sync_namespace_ids: [],
      minimum_reverification_interval: 7,
      clone_protocol: "http",
      web_geo_projects_url: "https://secondary.example.com/admin/geo/replication/projects",
      _links: {
        self: `${BASE}/api/v4/geo_nodes/${node.id}`,
        status: `${BASE}/api/v4/geo_nodes/${node.id}/status`,
        repair: `${BASE}/api/v4/geo_nodes/${node.id}/repair`,
      },
    });
  });

  it("creates the primary with every field; the own node is current; a primary shows no secondary fields", async () => {
    const group = await w.group();
    const node = await create({
      name: OWN,
      url: BASE,
      internal_url: "http://internal.example.com:8080",
      primary: true,
      files_max_capacity: 1,
      repos_max_capacity: 2,
      verification_max_capacity: 3,
      container_repositories_max_capacity: 4,
      selective_sync_type: "namespaces",
      selective_sync_namespace_ids: [group.id],
      selective_sync_shards: "default,other",
      minimum_reverification_interval: 30,
    });
    expect(node).toMatchObject({
      primary: true,
      current: true,
      internal_url: "http://internal.example.com:8080/",
      files_max_capacity: 1,
      repos_max_capacity: 2,
      verification_max_capacity: 3,
      container_repositories_max_capacity: 4,
      selective_sync_type: "namespaces",
      selective_sync_namespace_ids: [group.id],
      selective_sync_shards: ["default", "other"],
      minimum_reverification_interval: 30,
    });
    expect(node).not.toHaveProperty("sync_object_storage");
    expect(node).not.toHaveProperty("web_geo_projects_url");
  });

  it("answers GitLab's 400 bodies: missing parameters, validations, one primary, unique names", async () => {
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: {} }))).toEqual([400, { error: "name is missing, url is missing" }]);
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: "a", url: "x", files_max_capacity: "many" } }))).toEqual([
      400,
      { error: "files_max_capacity is invalid" },
    ]);
    expect(
      await statusAndBody(
        await w.root.post("/geo_nodes", {
          json: { name: " ", url: "ftp://x.example.com", selective_sync_type: "everything", repos_max_capacity: -1, minimum_reverification_interval: 0 },
        }),
      ),
    ).toEqual([
      400,
      {
        message: {
          name: ["can't be blank"],
          url: ["is blocked: Only allowed schemes are http, https"],
          selective_sync_type: ["is not included in the list"],
          repos_max_capacity: ["must be greater than or equal to 0"],
          minimum_reverification_interval: ["must be greater than or equal to 1"],
        },
      },
    ]);
    await create({ name: "Primary", url: "https://primary.example.com", primary: true });
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: "primary", url: "https://p2.example.com", primary: true } }))).toEqual([
      400,
      { message: { name: ["has already been taken"], primary: ["node already exists"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: "p3", url: "not a url" } }))).toEqual([400, { message: { url: ["must be a valid URL"] } }]);
  });

  it("refuses to make this instance's own node a secondary, and a disabled primary", async () => {
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: OWN, url: BASE } }))).toEqual([
      400,
      { message: { base: ["Current node must be the primary node or you will be locking yourself out"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: "p", url: BASE, primary: true, enabled: false } }))).toEqual([
      400,
      { message: { enabled: ["Geo primary node cannot be disabled"] } },
    ]);
  });

  it("answers 404 for an unknown selective-sync namespace", async () => {
    expect(await statusAndBody(await w.root.post("/geo_nodes", { json: { name: "s", url: "https://s.example.com", selective_sync_namespace_ids: [2147483000] } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
  });

  it("is for administrators: 401 anonymous, 403 others", async () => {
    expect(await statusAndBody(await w.anonymous.post("/geo_nodes", { json: { name: "s", url: "https://s.example.com" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).post("/geo_nodes", { json: { name: "s", url: "https://s.example.com" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /geo_nodes", () => {
  it("lists the nodes by id, paginated", async () => {
    const a = await create({ name: "a", url: "https://a.example.com", primary: true });
    const b = await create({ name: "b", url: "https://b.example.com" });
    const res = await w.root.get("/geo_nodes", { query: { per_page: 1, page: 2 } });
    expect(res.headers.get("x-total")).toBe("2");
    expect(((await res.json()) as Node[]).map((n) => n.id)).toEqual([b.id]);
    const all = (await (await w.root.get("/geo_nodes")).json()) as Node[];
    expect(all.map((n) => n.id)).toEqual([a.id, b.id]);
  });

  it("is for administrators", async () => {
    expect(await statusAndBody(await w.anonymous.get("/geo_nodes"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/geo_nodes"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /geo_nodes/:id", () => {
  it("answers the node, 404 GeoNode Not Found for an unknown id", async () => {
    const node = await create({ name: "a", url: "https://a.example.com" });
    expect(await statusAndBody(await w.root.get(`/geo_nodes/${node.id}`))).toEqual([200, node]);
    expect(await statusAndBody(await w.root.get("/geo_nodes/2147483000"))).toEqual([404, { message: "404 GeoNode Not Found" }]);
    expect(await statusAndBody(await w.root.get("/geo_nodes/abc"))).toEqual([400, { error: "id is invalid" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/geo_nodes/${node.id}`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("PUT /geo_nodes/:id", () => {
  it("changes only what is sent; internal_url equal to url reads as url", async () => {
    const node = await create({ name: "a", url: "https://a.example.com", internal_url: "https://in.example.com", files_max_capacity: 3 });
    const res = await w.root.put(`/geo_nodes/${node.id}`, { json: { name: "a", url: "https://moved.example.com/", internal_url: "https://moved.example.com", enabled: false } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "a", url: "https://moved.example.com/", internal_url: "https://moved.example.com/", enabled: false, files_max_capacity: 3 });
    expect(await statusAndBody(await w.root.put(`/geo_nodes/${node.id}`, { json: { name: "a", url: "https://a.example.com", repos_max_capacity: -5 } }))).toEqual([
      400,
      { message: { repos_max_capacity: ["must be greater than or equal to 0"] } },
    ]);
  });

  it("keeps one primary and the own node primary", async () => {
    await create({ name: OWN, url: BASE, primary: true });
    const other = await create({ name: "b", url: "https://b.example.com" });
    expect(await statusAndBody(await w.root.put(`/geo_nodes/${other.id}`, { json: { name: "b", url: "https://b.example.com", primary: true } }))).toEqual([400, { message: { primary: ["node already exists"] } }]);
    expect(await statusAndBody(await w.root.put(`/geo_nodes/${other.id}`, { json: { name: OWN.toUpperCase(), url: "https://b.example.com" } }))).toEqual([400, { message: { name: ["has already been taken"] } }]);
    expect(await statusAndBody(await w.root.put(`/geo_nodes/${other.id}`, { json: { name: "b" } }))).toEqual([400, { error: "url is missing" }]);
    expect(await statusAndBody(await w.root.put("/geo_nodes/2147483000", { json: { name: "x", url: "https://x.example.com" } }))).toEqual([404, { message: "404 GeoNode Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).put(`/geo_nodes/${other.id}`, { json: { name: "b", url: "https://b.example.com" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("is refused on a Geo secondary (this instance's own node is not the primary)", async () => {
    const [own] = await w.db((db) => db.insert(geoNodes).values({ name: OWN, url: OWN, primary: false }).returning());
    const other = await create({ name: "b", url: "https://b.example.com" }).catch(() => null);
    expect(other).toBeNull(); // POST is a write too
    const readOnly = [403, { message: "You cannot perform write operations on a read-only instance" }];
    expect(await statusAndBody(await w.root.put(`/geo_nodes/${own.id}`, { json: { name: OWN, url: OWN, primary: true } }))).toEqual(readOnly);
    expect(await statusAndBody(await w.root.delete(`/geo_nodes/${own.id}`))).toEqual(readOnly);
    expect(await statusAndBody(await w.root.post(`/geo_nodes/${own.id}/repair`))).toEqual(readOnly);
    expect((await w.root.get(`/geo_nodes/${own.id}`)).status).toBe(200);
  });
});

describe("DELETE /geo_nodes/:id", () => {
  it("deletes (204), then 404", async () => {
    const node = await create({ name: "a", url: "https://a.example.com" });
    expect(await statusAndBody(await w.as(w.stranger).delete(`/geo_nodes/${node.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.root.delete(`/geo_nodes/${node.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.root.delete(`/geo_nodes/${node.id}`))).toEqual([404, { message: "404 GeoNode Not Found" }]);
  });
});

describe("POST /geo_nodes/:id/repair", () => {
  it("gives a secondary that lost its OAuth application a new one; 200 with the node", async () => {
    await create({ name: OWN, url: BASE, primary: true });
    const node = await create({ name: "b", url: "https://b.example.com" });
    await w.db((db) => db.update(geoNodes).set({ oauthApplicationUid: null }));
    const res = await w.root.post(`/geo_nodes/${node.id}/repair`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: node.id, name: "b" });
    const [row] = await w.db((db) => db.select().from(geoNodes).where(eqId(node.id)));
    expect(row.oauthApplicationUid).toMatch(/^[0-9a-f]{64}$/);
    expect(await statusAndBody(await w.root.post("/geo_nodes/2147483000/repair"))).toEqual([404, { message: "404 GeoNode Not Found" }]);
    expect(await statusAndBody(await w.anonymous.post(`/geo_nodes/${node.id}/repair`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /geo_nodes/status and /geo_nodes/:id/status", () => {
  it("reports this instance's own node from what it stores; other nodes have no status", async () => {
    const own = await create({ name: OWN, url: BASE, primary: true });
    const other = await create({ name: "b", url: "https://b.example.com" });
    const projects = (await w.db((db) => db.execute<{ n: number }>(sqlCount("projects")))).rows[0].n;
    const oid = Array.from({ length: 4 }, () => Math.random().toString(16).slice(2, 18).padEnd(16, "0")).join("");
    await w.db((db) => db.execute(sql`INSERT INTO lfs_objects (oid, size, file) VALUES (${oid}, 1, ${`lfs/${oid}`})`));
    const list = (await (await w.root.get("/geo_nodes/status")).json()) as Node[];
    expect(list).toHaveLength(1);
    const status = list[0];
    expect(status).toMatchObject({
      geo_node_id: own.id,
      healthy: true,
      health: "Healthy",
      health_status: "Healthy",
      missing_oauth_application: false,
      repositories_synced_count: null,
      version: "15.4.0-ee",
      _links: { self: `${BASE}/api/v4/geo_nodes/${own.id}/status`, node: `${BASE}/api/v4/geo_nodes/${own.id}` },
    });
    // Counted from the tables at the time of the request: at least what existed a moment before.
    expect(status.repositories_count as number).toBeGreaterThanOrEqual(Number(projects));
    expect(typeof status.package_files_checksummed_count).toBe("number");
    expect(status.repositories_synced_in_percentage).toBe("0.00%");
    // LFS objects and attachments from their tables: every LFS object is checksummed (its oid).
    const lfs = (await w.db((db) => db.execute<{ n: number }>(sqlCount("lfs_objects")))).rows[0].n;
    expect(Number(lfs)).toBeGreaterThanOrEqual(1);
    expect(status.lfs_objects_count as number).toBeGreaterThanOrEqual(1);
    expect(status.lfs_objects_checksummed_count).toBe(status.lfs_objects_count);
    expect(typeof status.attachments_count).toBe("number");
    expect(status.attachments_checksummed_count as number).toBeLessThanOrEqual(status.attachments_count as number);

    const project = await w.project();
    const single = (await (await w.root.get(`/geo_nodes/${own.id}/status`)).json()) as Node;
    expect(single.repositories_count as number).toBeGreaterThan(status.repositories_count as number);
    expect(project.id).toBeGreaterThan(0);

    expect(await statusAndBody(await w.root.get(`/geo_nodes/${other.id}/status`))).toEqual([404, { message: "404 Status for Geo node not found Not Found" }]);
    expect(await statusAndBody(await w.root.get("/geo_nodes/2147483000/status"))).toEqual([404, { message: "404 GeoNode Not Found" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/geo_nodes/status"))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("is an empty list while this instance's node is not registered", async () => {
    await create({ name: "b", url: "https://b.example.com" });
    expect(await statusAndBody(await w.root.get("/geo_nodes/status"))).toEqual([200, []]);
  });
});

import { eq, sql } from "drizzle-orm";
const eqId = (id: number) => eq(geoNodes.id, id);
const sqlCount = (table: string) => sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)}`;
