import { and, eq } from "drizzle-orm";
import { gunzipSync, strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { groupTransferJobs, namespaces, users } from "../../db/schema";
import { untar } from "../../functions/project_import/archive";
import { multipart, targz } from "../project_import/support";
import { world, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;

/**
 * Waits for the group's export job (GitLab has no status endpoint, and the download allows one request a
 * minute: `group_download_export_limit`), then downloads the archive once.
 */
async function download(w: World, user: TestUser, groupId: number): Promise<Uint8Array> {
  for (let i = 0; i < 150; i++) {
    const [job] = await w.db((db) =>
      db.select({ status: groupTransferJobs.status }).from(groupTransferJobs).where(and(eq(groupTransferJobs.groupId, groupId), eq(groupTransferJobs.kind, "export"))),
    );
    if (job?.status === "finished") {
      const res = await w.as(user).get(`/groups/${groupId}/export/download`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/gzip");
      return new Uint8Array(await res.arrayBuffer());
    }
    expect(job?.status).toMatch(/^(queued|started)$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the export did not finish within 15 s");
}

/** Waits for the import job of the group at `fullPath` to leave scheduled/started. */
async function settledImport(w: World, fullPath: string) {
  for (let i = 0; i < 150; i++) {
    const [job] = await w.db((db) =>
      db.select({ status: groupTransferJobs.status, error: groupTransferJobs.error }).from(groupTransferJobs).innerJoin(namespaces, eq(namespaces.id, groupTransferJobs.groupId)).where(and(eq(namespaces.fullPath, fullPath), eq(groupTransferJobs.kind, "import"))),
    );
    if (job && !["scheduled", "started"].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the import did not finish within 15 s");
}

async function withPublicEmail(w: World, user: TestUser) {
  await w.db((db) => db.update(users).set({ publicEmail: user.email }).where(eq(users.id, user.id)));
}

/** A group with a subgroup, labels, milestones, epics (one a child), badges and members, made through the API. */
async function exportableGroup(w: World) {
  const owner = await w.user();
  const developer = await w.user();
  await withPublicEmail(w, developer);
  const group = await w.group({ owners: [owner], developers: [developer] });
  const sub = await w.group({ parent: group, path: "sub-one" });
  const api = w.as(owner);
  const ok = async (res: Response, status = 201) => {
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(status);
    return body;
  };
  await ok(await api.post(`/groups/${group.id}/labels`, { json: { name: "bug", color: "#ff0000", description: "a bug" } }));
  await ok(await api.post(`/groups/${sub.id}/labels`, { json: { name: "sub-label", color: "#00ff00" } }));
  await ok(await api.post(`/groups/${group.id}/milestones`, { json: { title: "v1", description: "first", due_date: "2027-01-31" } }));
  await ok(await api.post(`/groups/${sub.id}/milestones`, { json: { title: "sub-v1" } }));
  const parent = await ok(await api.post(`/groups/${group.id}/epics`, { json: { title: "Parent epic", labels: "bug" } }));
  await ok(await api.post(`/groups/${group.id}/epics`, { json: { title: "Child epic", parent_id: parent.id } }));
  await ok(await api.post(`/groups/${group.id}/badges`, { json: { link_url: "https://example.com/%{project_path}", image_url: "https://example.com/badge.svg", name: "b" } }));
  return { owner, developer, group, sub };
}

const titles = (rows: Json[], key = "title") => rows.map((r) => r[key]).sort();

describe("POST /groups/:id/export", () => {
  it("queues an export that GET …/export/download then serves, in GitLab's ndjson layout", async () => {
    const w = await world();
    const { owner, group, sub } = await exportableGroup(w);
    const res = await w.as(owner).post(`/groups/${group.id}/export`);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ message: "202 Accepted" });
    const files = untar(gunzipSync(await download(w, owner, group.id)));
    expect(strFromU8(files.get("VERSION")!)).toBe("0.2.4");
    expect(strFromU8(files.get("tree/groups/_all.ndjson")!).trim().split("\n").map(Number)).toEqual([group.id, sub.id]);
    expect(JSON.parse(strFromU8(files.get(`tree/groups/${sub.id}.json`)!))).toMatchObject({ path: "sub-one", parent_id: group.id });
    const epics = strFromU8(files.get(`tree/groups/${group.id}/epics.ndjson`)!).trim().split("\n").map((l) => JSON.parse(l) as Json);
    expect(epics.find((e) => e.title === "Child epic")!.parent).toMatchObject({ title: "Parent epic" });
    expect(epics.find((e) => e.title === "Parent epic")!.label_links[0].label.title).toBe("bug");
    expect(strFromU8(files.get(`tree/groups/${sub.id}/labels.ndjson`)!)).toContain("sub-label");
    // `group_download_export_limit` (1 a minute per user and group): the second download is refused.
    const again = await w.as(owner).get(`/groups/${group.id}/export/download`);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("is for owners: 401 anonymous, 404 who cannot read the group, 403 a maintainer", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    expect((await w.anonymous.post(`/groups/${group.id}/export`)).status).toBe(401);
    const hidden = await w.as(w.stranger).post(`/groups/${group.id}/export`);
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ message: "404 Group Not Found" });
    const refused = await w.as(maintainer).post(`/groups/${group.id}/export`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: "403 Forbidden" });
  });
});

describe("GET /groups/:id/export/download", () => {
  it("answers 404 until an export has finished", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const res = await w.as(owner).get(`/groups/${group.id}/export/download`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 Not found or has expired" });
  });
});

describe("POST /groups/import", () => {
  it("round trip: imports an export under a new path with its subgroup, labels, milestones, epics, badges and members", async () => {
    const w = await world();
    const { owner, developer, group } = await exportableGroup(w);
    expect((await w.as(owner).post(`/groups/${group.id}/export`)).status).toBe(202);
    const archive = await download(w, owner, group.id);
    const path = `imported-${group.path}`;
    const res = await w.as(owner).post(`/groups/import`, { multipart: multipart(archive, { path, name: "Imported group" }) });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ message: "202 Accepted" });
    expect(await settledImport(w, path)).toEqual({ status: "finished", error: null });
    const api = w.as(owner);
    const get = async (url: string) => (await (await api.get(url)).json()) as any;
    const imported = await get(`/groups/${encodeURIComponent(path)}`);
    expect(imported).toMatchObject({ path, name: "Imported group", visibility: "private" });
    expect(titles(await get(`/groups/${imported.id}/subgroups`), "path")).toEqual(["sub-one"]);
    const sub = await get(`/groups/${encodeURIComponent(`${path}/sub-one`)}`);
    expect(titles(await get(`/groups/${imported.id}/labels?include_ancestor_groups=false`), "name")).toEqual(["bug"]);
    expect(titles(await get(`/groups/${sub.id}/labels?include_ancestor_groups=false`), "name")).toEqual(["sub-label"]);
    const milestones = await get(`/groups/${imported.id}/milestones`);
    expect(milestones.map((m: Json) => [m.iid, m.title, m.description, m.due_date])).toEqual([[1, "v1", "first", "2027-01-31"]]);
    expect(titles(await get(`/groups/${sub.id}/milestones`))).toEqual(["sub-v1"]);
    const epics = (await get(`/groups/${imported.id}/epics`)) as Json[];
    const parent = epics.find((e) => e.title === "Parent epic")!;
    const child = epics.find((e) => e.title === "Child epic")!;
    expect(parent.labels).toEqual(["bug"]);
    expect(child.parent_id).toBe(parent.id);
    // The iid counter continues after the imported epics.
    const next = (await (await api.post(`/groups/${imported.id}/epics`, { json: { title: "after" } })).json()) as Json;
    expect(next.iid).toBe(3);
    expect((await get(`/groups/${imported.id}/badges`)).map((b: Json) => b.link_url)).toEqual(["https://example.com/%{project_path}"]);
    const members = (await get(`/groups/${imported.id}/members`)) as Json[];
    expect(members.map((m) => [m.username, m.access_level]).sort()).toEqual([[developer.username, 30], [owner.username, 50]].sort());
  });

  it("fails the job, not the request, on an archive that is not a group export", async () => {
    const w = await world();
    const owner = await w.user();
    const path = `broken-${owner.username}`;
    const res = await w.as(owner).post(`/groups/import`, { multipart: multipart(targz({ VERSION: "0.2.4" }), { path, name: "Broken" }) });
    expect(res.status).toBe(202);
    const job = await settledImport(w, path);
    expect(job.status).toBe("failed");
    expect(job.error).toContain("_all.ndjson");
  });

  it("answers GitLab's 400 bodies for missing parameters, a bad file and a taken path", async () => {
    const w = await world();
    const owner = await w.user();
    const taken = await w.group({ owners: [owner] });
    const missing = await w.as(owner).post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: "abc" }) });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "name is missing" });
    const badFile = await w.as(owner).post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: "abcd", name: "x" }, "export.zip") });
    expect(badFile.status).toBe(400);
    expect(await badFile.json()).toEqual({ message: "The file is invalid" });
    const clash = await w.as(owner).post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: taken.path, name: "x" }) });
    expect(clash.status).toBe(400);
    expect(((await clash.json()) as Json).message).toContain("has already been taken");
  });

  it("needs create_subgroup on the parent: 403 a developer, 404 a parent the caller cannot read, 401 anonymous", async () => {
    const w = await world();
    const developer = await w.user();
    const parent = await w.group({ developers: [developer] });
    const refused = await w.as(developer).post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: "child", name: "c", parent_id: String(parent.id) }) });
    expect(refused.status).toBe(403);
    const hidden = await w.as(w.stranger).post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: "child", name: "c", parent_id: String(parent.id) }) });
    expect(hidden.status).toBe(404);
    expect((await w.anonymous.post(`/groups/import`, { multipart: multipart(new Uint8Array(1), { path: "child", name: "c" }) })).status).toBe(401);
  });
});
