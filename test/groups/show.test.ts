import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { linkProject, queryCount, setCustomAttribute, type Json } from "./support";

describe("GET /groups/:id", () => {
  it("shows a public group to anonymous callers, with its projects and shared projects they may read", async () => {
    const w = await world();
    const group = await w.group({ visibility: "public" });
    const pub = await w.project({ group, visibility: "public" });
    await w.project({ group, visibility: "internal" });
    await w.project({ group, visibility: "private" });
    const elsewhere = await w.group({ visibility: "public" });
    const sharedPub = await w.project({ group: elsewhere, visibility: "public" });
    const sharedPriv = await w.project({ group: elsewhere, visibility: "private" });
    await linkProject(w, sharedPub.id, group.id);
    await linkProject(w, sharedPriv.id, group.id);
    const res = await w.anonymous.get(`/groups/${group.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      id: group.id,
      name: group.name,
      path: group.path,
      full_path: group.fullPath,
      visibility: "public",
      web_url: `http://edgeforge.test/groups/${group.fullPath}`,
      parent_id: null,
      shared_with_groups: [],
    });
    expect(body.projects.map((p: Json) => p.id)).toEqual([pub.id]);
    expect(body.projects[0]).toMatchObject({ path_with_namespace: pub.fullPath, namespace: { id: group.id, kind: "group" } });
    expect(body.shared_projects.map((p: Json) => p.id)).toEqual([sharedPub.id]);
    expect(body.shared_projects[0].namespace.id).toBe(elsewhere.id);
    expect(body.shared_projects[0].shared_with_groups).toEqual([
      { group_id: group.id, group_name: group.name, group_full_path: group.fullPath, group_access_level: 30, expires_at: null },
    ]);
    expect(body).not.toHaveProperty("runners_token");
  });

  it("lists projects newest first, private ones to members only", async () => {
    const w = await world();
    const member = await w.user();
    const group = await w.group({ visibility: "internal", reporters: [member] });
    const first = await w.project({ group, visibility: "private" });
    const second = await w.project({ group, visibility: "internal" });
    const asMember = (await (await w.as(member).get(`/groups/${group.id}`)).json()) as Json;
    expect(asMember.projects.map((p: Json) => p.id)).toEqual([second.id, first.id]);
    const asStranger = (await (await w.as(w.stranger).get(`/groups/${group.id}`)).json()) as Json;
    expect(asStranger.projects.map((p: Json) => p.id)).toEqual([second.id]);
  });

  it("omits projects with with_projects=false and shows custom attributes to admins who ask", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    await setCustomAttribute(w, group.id, "cost_center", "42");
    const lean = (await (await w.as(owner).get(`/groups/${group.id}`, { query: { with_projects: false, with_custom_attributes: true } })).json()) as Json;
    expect(lean).not.toHaveProperty("projects");
    expect(lean).not.toHaveProperty("shared_projects");
    expect(lean).not.toHaveProperty("custom_attributes");
    expect(lean.shared_with_groups).toEqual([]);
    const admin = (await (await w.root.get(`/groups/${group.id}`, { query: { with_custom_attributes: true } })).json()) as Json;
    expect(admin.custom_attributes).toEqual([{ key: "cost_center", value: "42" }]);
    expect(admin.projects).toEqual([]);
  });

  it("finds a group by its URL-encoded full path, case-insensitively", async () => {
    const w = await world();
    const parent = await w.group({ visibility: "public" });
    const child = await w.group({ visibility: "public", parent, path: "Child-X" });
    const res = await w.anonymous.get(`/groups/${encodeURIComponent(`${parent.fullPath}/child-x`.toUpperCase())}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: child.id, parent_id: parent.id, full_path: `${parent.fullPath}/Child-X` });
  });

  it("hides private groups from anonymous callers and strangers, internal groups from external users", async () => {
    const w = await world();
    const member = await w.user();
    const external = await w.user({ external: true });
    const priv = await w.group({ visibility: "private", guests: [member] });
    const internal = await w.group({ visibility: "internal" });
    const notFound = [404, { message: "404 Group Not Found" }];
    expect(await statusAndBody(await w.anonymous.get(`/groups/${priv.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${priv.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.as(external).get(`/groups/${internal.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.anonymous.get(`/groups/${internal.id}`))).toEqual(notFound);
    expect((await w.as(w.stranger).get(`/groups/${internal.id}`)).status).toBe(200);
    expect((await w.as(member).get(`/groups/${priv.id}`)).status).toBe(200);
    expect((await w.root.get(`/groups/${priv.id}`)).status).toBe(200);
    expect(await statusAndBody(await w.root.get("/groups/999999999"))).toEqual(notFound);
    expect(await statusAndBody(await w.root.get("/groups/no-such-group"))).toEqual(notFound);
  });

  it("lets members of a subgroup or of a project inside see a private ancestor", async () => {
    const w = await world();
    const subMember = await w.user();
    const projectMember = await w.user();
    const root = await w.group({ visibility: "private" });
    await w.group({ parent: root, guests: [subMember] });
    await w.project({ group: root, reporters: [projectMember] });
    expect((await w.as(subMember).get(`/groups/${root.id}`)).status).toBe(200);
    expect((await w.as(projectMember).get(`/groups/${root.id}`)).status).toBe(200);
  });

  it("answers in at most 6 statements, however many projects the group has", async () => {
    const w = await world();
    const group = await w.group({ visibility: "public" });
    const before = await w.root.get(`/groups/${group.id}`, { query: { with_custom_attributes: true } });
    for (let i = 0; i < 3; i++) {
      const p = await w.project({ group, visibility: "public" });
      await linkProject(w, p.id, (await w.group({ visibility: "public" })).id);
    }
    const after = await w.root.get(`/groups/${group.id}`, { query: { with_custom_attributes: true } });
    expect(((await after.json()) as Json).projects).toHaveLength(3);
    expect(queryCount(after)).toBeLessThanOrEqual(6);
    expect(queryCount(after)).toBeGreaterThanOrEqual(queryCount(before));
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const group = await w.group({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/groups/${group.id}`, { query: { with_projects: "sometimes" } }))).toEqual([
      400,
      { error: "with_projects is invalid" },
    ]);
  });
});
