import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";

type Json = Record<string, any>;

/** Each kind of owner, made in a world and named in the path as GitLab allows (users by id, others by id or path). */
const OWNERS = {
  users: async (w: World) => String((await w.user()).id),
  groups: async (w: World) => encodeURIComponent((await w.group({ visibility: "private" })).fullPath),
  projects: async (w: World) => String((await w.project({ visibility: "private" })).id),
} as const;

for (const [segment, make] of Object.entries(OWNERS)) {
  describe(`PUT /${segment}/:id/custom_attributes/:key`, () => {
    requiresAuthentication((w) => w.anonymous.put(`/${segment}/1/custom_attributes/k`, { json: { value: "v" } }));

    it("creates then changes an attribute (200), which GET lists and shows", async () => {
      const w = await world();
      const id = await make(w);
      expect(await statusAndBody(await w.root.put(`/${segment}/${id}/custom_attributes/team`, { json: { value: "red" } }))).toEqual([
        200,
        { key: "team", value: "red" },
      ]);
      await w.root.put(`/${segment}/${id}/custom_attributes/site`, { form: { value: "eu" } });
      expect(await statusAndBody(await w.root.put(`/${segment}/${id}/custom_attributes/team`, { json: { value: "blue" } }))).toEqual([
        200,
        { key: "team", value: "blue" },
      ]);
      expect(await statusAndBody(await w.root.get(`/${segment}/${id}/custom_attributes`))).toEqual([
        200,
        [
          { key: "team", value: "blue" },
          { key: "site", value: "eu" },
        ],
      ]);
      expect(await statusAndBody(await w.root.get(`/${segment}/${id}/custom_attributes/site`))).toEqual([200, { key: "site", value: "eu" }]);
    });

    it("answers 400 without a value or with a blank one", async () => {
      const w = await world();
      const id = await make(w);
      expect(await statusAndBody(await w.root.put(`/${segment}/${id}/custom_attributes/k`))).toEqual([400, { error: "value is missing" }]);
      expect(await statusAndBody(await w.root.put(`/${segment}/${id}/custom_attributes/k`, { json: { value: " " } }))).toEqual([
        400,
        { message: { value: ["can't be blank"] } },
      ]);
    });

    it("answers 403 to non-administrators", async () => {
      const w = await world();
      const id = await make(w);
      expect(await statusAndBody(await w.as(w.stranger).put(`/${segment}/${id}/custom_attributes/k`, { json: { value: "v" } }))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
      expect(await statusAndBody(await w.as(w.stranger).get(`/${segment}/${id}/custom_attributes`))).toEqual([403, { message: "403 Forbidden" }]);
    });
  });

  describe(`GET and DELETE /${segment}/:id/custom_attributes/:key`, () => {
    it("deletes an attribute (204), after which it is 404 Not found", async () => {
      const w = await world();
      const id = await make(w);
      await w.root.put(`/${segment}/${id}/custom_attributes/gone`, { json: { value: "soon" } });
      expect((await w.root.delete(`/${segment}/${id}/custom_attributes/gone`)).status).toBe(204);
      expect(await statusAndBody(await w.root.get(`/${segment}/${id}/custom_attributes/gone`))).toEqual([404, { message: "404 Not found" }]);
      expect(await statusAndBody(await w.root.delete(`/${segment}/${id}/custom_attributes/gone`))).toEqual([404, { message: "404 Not found" }]);
      expect(await statusAndBody(await w.root.get(`/${segment}/${id}/custom_attributes`))).toEqual([200, []]);
    });

    it("answers 404 for an unknown owner", async () => {
      const w = await world();
      const name = { users: "User", groups: "Group", projects: "Project" }[segment];
      expect(await statusAndBody(await w.root.get(`/${segment}/2147483647/custom_attributes`))).toEqual([404, { message: `404 ${name} Not Found` }]);
    });
  });
}

describe("GET /users?custom_attributes[key]=value", () => {
  it("filters users by an attribute set through the API (administrators)", async () => {
    const w = await world();
    const a = await w.user();
    await w.user();
    const marker = `m${a.id}`;
    await w.root.put(`/users/${a.id}/custom_attributes/marker`, { json: { value: marker } });
    const res = await w.root.get("/users", { query: { "custom_attributes[marker]": marker, with_custom_attributes: true } });
    const body = (await res.json()) as Json[];
    expect(body.map((u) => u.id)).toEqual([a.id]);
    expect(body[0].custom_attributes).toEqual([{ key: "marker", value: marker }]);
  });
});

describe("GET /projects?custom_attributes[key]=value", () => {
  it("filters projects by an attribute for administrators; others are not filtered by it", async () => {
    const w = await world();
    const a = await w.project({ visibility: "public" });
    await w.project({ visibility: "public" });
    const marker = `p${a.id}`;
    await w.root.put(`/projects/${a.id}/custom_attributes/marker`, { json: { value: marker } });
    const ids = async (res: Response) => ((await res.json()) as Json[]).map((p) => p.id);
    expect(await ids(await w.root.get("/projects", { query: { "custom_attributes[marker]": marker } }))).toEqual([a.id]);
    expect(await ids(await w.root.get("/projects", { query: { "custom_attributes[marker]": "other" } }))).toEqual([]);
    expect((await ids(await w.as(w.stranger).get("/projects", { query: { "custom_attributes[marker]": marker, per_page: 100 } }))).length).toBeGreaterThan(1);
  });
});
