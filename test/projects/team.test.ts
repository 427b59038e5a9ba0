import { describe, expect, it } from "vitest";
import { projectGroupLinks } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;

describe("GET /projects/:id/users", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/users`));

  it("lists direct, inherited and shared members as UserBasic, by id; search and skip_users", async () => {
    const w = await world();
    const [direct, inherited, viaShare, outsider] = [await w.user({ name: "Alice Direct" }), await w.user({ name: "Bob Inherited" }), await w.user({ name: "Carol Shared" }), await w.user()];
    const parent = await w.group({ developers: [inherited] });
    const project = await w.project({ group: parent, visibility: "internal", reporters: [direct] });
    const other = await w.group({ guests: [viaShare] });
    await w.db((db) => db.insert(projectGroupLinks).values({ projectId: project.id, groupId: other.id, groupAccess: 30 }));
    const res = await w.as(outsider).get(`/projects/${project.id}/users`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((u) => u.id)).toEqual([direct.id, inherited.id, viaShare.id].sort((a, b) => a - b));
    expect(Object.keys(body[0])).toEqual(["id", "username", "name", "state", "avatar_url", "web_url"]);
    expect(res.headers.get("x-total")).toBe("3");
    const searched = (await (await w.as(outsider).get(`/projects/${project.id}/users`, { query: { search: "carol" } })).json()) as Json[];
    expect(searched.map((u) => u.id)).toEqual([viaShare.id]);
    const skipped = (await (await w.as(outsider).get(`/projects/${project.id}/users`, { query: { skip_users: `${direct.id},${inherited.id}` } })).json()) as Json[];
    expect(skipped.map((u) => u.id)).toEqual([viaShare.id]);
    const paged = await w.as(outsider).get(`/projects/${project.id}/users`, { query: { per_page: 2, page: 2 } });
    expect(((await paged.json()) as Json[]).length).toBe(1);
    expect(paged.headers.get("x-total-pages")).toBe("2");
  });

  it("answers 400 for a bad skip_users", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/users`, { query: { skip_users: "x" } }))).toEqual([
      400,
      { error: "skip_users is invalid" },
    ]);
  });
});

describe("GET /projects/:id/groups", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/groups`));

  it("lists the project's group and its ancestors, newest first; with_shared adds shared groups", async () => {
    const w = await world();
    const owner = await w.user();
    const top = await w.group({ visibility: "public", owners: [owner] });
    const sub = await w.group({ visibility: "public", parent: top });
    const project = await w.project({ group: sub, visibility: "public" });
    const sharedLow = await w.group({ visibility: "public" });
    const sharedHigh = await w.group({ visibility: "private" });
    await w.db((db) =>
      db.insert(projectGroupLinks).values([
        { projectId: project.id, groupId: sharedLow.id, groupAccess: 20 },
        { projectId: project.id, groupId: sharedHigh.id, groupAccess: 40 },
      ]),
    );
    const res = await w.anonymous.get(`/projects/${project.id}/groups`);
    const body = (await res.json()) as Json[];
    expect(body.map((g) => g.id)).toEqual([sub.id, top.id]);
    expect(body[0]).toEqual({
      id: sub.id,
      web_url: expect.stringMatching(new RegExp(`/groups/${sub.fullPath}$`)),
      name: sub.name,
      avatar_url: null,
      full_name: expect.any(String),
      full_path: sub.fullPath,
    });
    const shared = (await (await w.anonymous.get(`/projects/${project.id}/groups`, { query: { with_shared: true } })).json()) as Json[];
    expect(shared.map((g) => g.id)).toEqual([sharedHigh.id, sharedLow.id, sub.id, top.id]);
    const min = (await (await w.anonymous.get(`/projects/${project.id}/groups`, { query: { with_shared: true, shared_min_access_level: 30 } })).json()) as Json[];
    expect(min.map((g) => g.id)).toEqual([sharedHigh.id, sub.id, top.id]);
    const visible = (await (await w.anonymous.get(`/projects/${project.id}/groups`, { query: { with_shared: true, shared_visible_only: true } })).json()) as Json[];
    expect(visible.map((g) => g.id)).toEqual([sharedLow.id, sub.id, top.id]);
    const skipped = (await (await w.anonymous.get(`/projects/${project.id}/groups`, { query: { skip_groups: String(top.id) } })).json()) as Json[];
    expect(skipped.map((g) => g.id)).toEqual([sub.id]);
  });

  it("is empty for a personal project and answers 400 for a bad shared_min_access_level", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/groups`))).toEqual([200, []]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/groups`, { query: { shared_min_access_level: 15 } }))).toEqual([
      400,
      { error: "shared_min_access_level does not have a valid value" },
    ]);
  });
});
