import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import type { Json } from "./support";

describe("POST /groups/:id/share", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups/1/share", { json: { group_id: 1, group_access: 30 } }));

  it("shares the group; GroupDetail lists the share; a second share of the pair is 409", async () => {
    const w = await world();
    const owner = await w.user();
    const shared = await w.group({ owners: [owner] });
    const other = await w.group({ guests: [owner] });
    const res = await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_id: other.id, group_access: 20, expires_at: "2999-01-02" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body.id).toBe(shared.id);
    expect(body.projects).toBeUndefined();
    expect(body.shared_with_groups).toEqual([
      { group_id: other.id, group_name: other.name, group_full_path: other.fullPath, group_access_level: 20, expires_at: "2999-01-02" },
    ]);
    const shown = (await (await w.as(owner).get(`/groups/${shared.id}`)).json()) as Json;
    expect(shown.shared_with_groups).toHaveLength(1);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_id: other.id, group_access: 30 } }))).toEqual([
      409,
      { message: "Shared group The group has already been shared with this group" },
    ]);
  });

  it("gives the shared-with group's members access to the shared group, its subgroups and projects, capped", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const shared = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: shared });
    const project = await w.project({ group: sub });
    const team = await w.group({ maintainers: [dev], owners: [owner] });
    expect((await w.as(dev).get(`/projects/${project.id}`)).status).toBe(404);
    expect((await w.as(dev).get(`/groups/${sub.id}`)).status).toBe(404);
    expect((await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    const seen = await w.as(dev).get(`/projects/${project.id}`);
    expect(seen.status).toBe(200);
    expect((await w.as(dev).get(`/groups/${sub.id}`)).status).toBe(200);
    const listed = (await (await w.as(dev).get("/projects", { query: { membership: true } })).json()) as Json[];
    expect(listed.map((p) => p.id)).toContain(project.id);
    // A maintainer of the team, capped at the share's developer level: labels (reporter) yes, settings (maintainer) no.
    expect((await w.as(dev).post(`/projects/${project.id}/labels`, { json: { name: "shared", color: "#FF0000" } })).status).toBe(201);
    expect((await w.as(dev).put(`/projects/${project.id}`, { json: { description: "x" } })).status).toBe(403);
    // Unsharing takes the access away.
    expect((await w.as(owner).delete(`/groups/${shared.id}/share/${team.id}`)).status).toBe(204);
    expect((await w.as(dev).get(`/projects/${project.id}`)).status).toBe(404);
  });

  it("answers 404 Not Found to a non-owner and 404 Group Not Found for an unreadable group", async () => {
    const w = await world();
    const maintainer = await w.user();
    const shared = await w.group({ maintainers: [maintainer] });
    const other = await w.group({ guests: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${shared.id}/share`, { json: { group_id: other.id, group_access: 30 } }))).toEqual([
      404,
      { message: "Not Found" },
    ]);
    const hidden = await w.group();
    expect(await statusAndBody(await w.as(maintainer).post(`/groups/${shared.id}/share`, { json: { group_id: hidden.id, group_access: 30 } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });

  it("answers 400 for bad parameters", async () => {
    const w = await world();
    const owner = await w.user();
    const shared = await w.group({ owners: [owner] });
    expect(await statusAndBody(await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_access: 5 } }))).toEqual([
      400,
      { error: "group_id is missing, group_access does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_id: 1, group_access: 30, expires_at: "soon" } }))).toEqual([
      400,
      { error: "expires_at is invalid" },
    ]);
  });
});

describe("DELETE /groups/:id/share/:group_id", () => {
  requiresAuthentication((w) => w.anonymous.delete("/groups/1/share/2"));

  it("answers 404 Group Link Not Found without a share, 403 to a non-owner", async () => {
    const w = await world();
    const owner = await w.user();
    const maintainer = await w.user();
    const shared = await w.group({ owners: [owner], maintainers: [maintainer] });
    const other = await w.group({ owners: [owner] });
    expect(await statusAndBody(await w.as(owner).delete(`/groups/${shared.id}/share/${other.id}`))).toEqual([404, { message: "404 Group Link Not Found" }]);
    await w.as(owner).post(`/groups/${shared.id}/share`, { json: { group_id: other.id, group_access: 30 } });
    expect((await w.as(maintainer).delete(`/groups/${shared.id}/share/${other.id}`)).status).toBe(403);
    expect((await w.as(owner).delete(`/groups/${shared.id}/share/${other.id}`)).status).toBe(204);
    expect(((await (await w.as(owner).get(`/groups/${shared.id}`)).json()) as Json).shared_with_groups).toEqual([]);
  });
});
