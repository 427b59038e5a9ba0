import { describe, expect, it } from "vitest";
import { BASE, client, statusAndBody, worker } from "../helpers/client";
import { smallRepo } from "../helpers/git";
import { world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";

type Json = Record<string, any>;
const path = (project: { id: number }, id = "") => `/projects/${project.id}/access_tokens${id ? `/${id}` : ""}`;
const groupPath = (group: { id: number }, id = "") => `/groups/${group.id}/access_tokens${id ? `/${id}` : ""}`;

async function setup(): Promise<{ w: World; maintainer: TestUser; project: TestProject }> {
  const w = await world();
  const maintainer = await w.user();
  const project = await w.project({ visibility: "private", maintainers: [maintainer] });
  return { w, maintainer, project };
}

describe("POST /projects/:id/access_tokens", () => {
  it("creates a bot member and answers the token once; the token acts as the bot", async () => {
    const { w, maintainer, project } = await setup();
    const res = await w.as(maintainer).post(path(project), { json: { name: "ci bot", scopes: ["api"], access_level: 30, expires_at: "2099-01-01" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: expect.any(Number),
      name: "ci bot",
      revoked: false,
      created_at: expect.any(String),
      scopes: ["api"],
      user_id: expect.any(Number),
      last_used_at: null,
      active: true,
      expires_at: "2099-01-01",
      access_level: 30,
      token: expect.stringMatching(/^glpat-/),
    });
    const me = (await (await client(body.token).get("/user")).json()) as Json;
    expect(me.id).toBe(body.user_id);
    expect(me.username).toMatch(new RegExp(`^project_${project.id}_bot_[0-9a-f]{32}$`));
    expect(me.bot).toBe(true);
    // The bot reads the private project through its Developer membership, and shows among the members.
    expect((await client(body.token).get(`/projects/${project.id}`)).status).toBe(200);
    const bots = ((await (await w.as(maintainer).get(`/projects/${project.id}/members`)).json()) as Json[]).filter((m) => m.id === body.user_id);
    expect(bots.map((m) => [m.username, m.access_level, m.expires_at])).toEqual([[me.username, 30, "2099-01-01"]]);
    // Shown once: reading it back has no value.
    const shown = (await (await w.as(maintainer).get(path(project, String(body.id)))).json()) as Json;
    expect(shown).not.toHaveProperty("token");
    expect(shown.access_level).toBe(30);
  });

  it("answers GitLab's 400 bodies for bad access_level, scopes and expires_at", async () => {
    const { w, maintainer, project } = await setup();
    const api = w.as(maintainer);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", scopes: ["api"], access_level: 35 } }))).toEqual([400, { error: "access_level does not have a valid value" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", scopes: ["read_user"] } }))).toEqual([400, { error: "scopes does not have a valid value" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", scopes: ["api"], expires_at: "soon" } }))).toEqual([400, { error: "expires_at is invalid" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x" } }))).toEqual([400, { error: "scopes is missing" }]);
    // A maintainer cannot make an Owner bot.
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", scopes: ["api"], access_level: 50 } }))).toEqual([
      400,
      { message: "400 Bad request - Could not provision owner access to project access token" },
    ]);
    expect(((await (await api.get(path(project))).json()) as Json[]).length).toBe(0);
  });

  it("refuses anonymous callers (401), developers (400), and strangers (404)", async () => {
    const { w, project } = await setup();
    const developer = await w.user();
    const dev = await w.project({ visibility: "private", developers: [developer] });
    expect(await statusAndBody(await client(null).post(path(project), { json: { name: "x", scopes: ["api"] } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).post(path(dev), { json: { name: "x", scopes: ["api"] } }))).toEqual([
      400,
      { message: "400 Bad request - User does not have permission to create project access token" },
    ]);
    expect(await statusAndBody(await w.as(developer).post(path(project), { json: { name: "x", scopes: ["api"] } }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/access_tokens", () => {
  it("lists the project's bot tokens with pagination; 401 below Maintainer", async () => {
    const { w, maintainer, project } = await setup();
    const api = w.as(maintainer);
    for (const name of ["a", "b", "c"]) expect((await api.post(path(project), { json: { name, scopes: ["read_api"] } })).status).toBe(201);
    const other = await w.project({ visibility: "private", maintainers: [maintainer] });
    await api.post(path(other), { json: { name: "elsewhere", scopes: ["api"] } });
    const first = await api.get(path(project), { query: { per_page: 2 } });
    expect(first.headers.get("x-total")).toBe("3");
    expect(((await first.json()) as Json[]).map((t) => [t.name, t.access_level])).toEqual([["a", 40], ["b", 40]]);
    const second = (await (await api.get(path(project), { query: { per_page: 2, page: 2 } })).json()) as Json[];
    expect(second.map((t) => t.name)).toEqual(["c"]);
    const developer = await w.user();
    const shared = await w.project({ visibility: "private", developers: [developer], maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(developer).get(path(shared)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).get(path(project)))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/access_tokens/:token_id", () => {
  it("shows one token; another project's token is 404", async () => {
    const { w, maintainer, project } = await setup();
    const api = w.as(maintainer);
    const other = await w.project({ visibility: "private", maintainers: [maintainer] });
    const made = (await (await api.post(path(other), { json: { name: "o", scopes: ["api"] } })).json()) as Json;
    expect(((await (await api.get(path(other, made.id))).json()) as Json).name).toBe("o");
    expect(await statusAndBody(await api.get(path(project, made.id)))).toEqual([404, { message: "404 project Access Token Not Found" }]);
    expect(await statusAndBody(await api.get(path(project, "abc")))).toEqual([404, { message: "404 project Access Token Not Found" }]);
  });
});

describe("DELETE /projects/:id/access_tokens/:token_id", () => {
  it("revokes at once: the token is refused and the bot leaves the members", async () => {
    const { w, maintainer, project } = await setup();
    const api = w.as(maintainer);
    const made = (await (await api.post(path(project), { json: { name: "gone", scopes: ["api"] } })).json()) as Json;
    expect((await client(made.token).get(`/projects/${project.id}`)).status).toBe(200);
    const developer = await w.user();
    await w.project({ visibility: "private", developers: [developer] });
    expect((await api.delete(path(project, made.id))).status).toBe(204);
    expect(await statusAndBody(await client(made.token).get(`/projects/${project.id}`))).toEqual([401, { message: "401 Unauthorized" }]);
    const members = (await (await api.get(`/projects/${project.id}/members`)).json()) as Json[];
    expect(members.some((m) => m.id === made.user_id)).toBe(false);
    expect(await statusAndBody(await api.delete(path(project, made.id)))).toEqual([404, { message: "404 project Access Token Not Found" }]);
  });

  it("answers 400 to a developer who names a token", async () => {
    const { w, maintainer } = await setup();
    const developer = await w.user({ name: "Dev One" });
    const project = await w.project({ visibility: "private", developers: [developer], maintainers: [maintainer] });
    const made = (await (await w.as(maintainer).post(path(project), { json: { name: "keep", scopes: ["api"] } })).json()) as Json;
    expect(await statusAndBody(await w.as(developer).delete(path(project, made.id)))).toEqual([400, { message: "400 Bad request - Dev One cannot delete keep" }]);
    expect((await client(made.token).get(`/projects/${project.id}`)).status).toBe(200);
  });
});

describe("group access tokens", () => {
  it("an owner creates, lists, and revokes; the bot reads the group's private project", async () => {
    const w = await world();
    const owner = await w.user();
    const maintainer = await w.user();
    const group: TestGroup = await w.group({ visibility: "private", owners: [owner], maintainers: [maintainer] });
    const project = await w.project({ visibility: "private", group });
    const res = await w.as(owner).post(groupPath(group), { json: { name: "g", scopes: ["read_api"], access_level: 20 } });
    expect(res.status).toBe(201);
    const made = (await res.json()) as Json;
    const me = (await (await client(made.token).get("/user")).json()) as Json;
    expect(me.username).toMatch(new RegExp(`^group_${group.id}_bot_[0-9a-f]{32}$`));
    expect((await client(made.token).get(`/projects/${project.id}`)).status).toBe(200);
    expect(((await (await w.as(owner).get(groupPath(group))).json()) as Json[]).map((t) => [t.name, t.access_level])).toEqual([["g", 20]]);
    // Group tokens are the owners' (GroupPolicy): a maintainer is told 401 on read, 400 on create.
    expect(await statusAndBody(await w.as(maintainer).get(groupPath(group)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(maintainer).post(groupPath(group), { json: { name: "m", scopes: ["api"] } }))).toEqual([
      400,
      { message: "400 Bad request - User does not have permission to create group access token" },
    ]);
    expect((await w.as(owner).delete(groupPath(group, made.id))).status).toBe(204);
    expect((await client(made.token).get("/user")).status).toBe(401);
  });
});

describe("POST /projects/:id/access_tokens/:token_id/rotate", () => {
  it("revokes the old token, answers a new one for the same bot, and moves the membership's expiry", async () => {
    const { w, maintainer, project } = await setup();
    const api = w.as(maintainer);
    const made = (await (await api.post(path(project), { json: { name: "r", scopes: ["api"], access_level: 30 } })).json()) as Json;
    const res = await api.post(`${path(project, made.id)}/rotate`, { json: { expires_at: "2099-02-02" } });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as Json;
    expect(rotated).toMatchObject({ name: "r", scopes: ["api"], user_id: made.user_id, access_level: 30, expires_at: "2099-02-02", active: true });
    expect(rotated.id).not.toBe(made.id);
    expect((await client(made.token).get("/user")).status).toBe(401);
    expect(((await (await client(rotated.token).get("/user")).json()) as Json).id).toBe(made.user_id);
    const member = (await (await api.get(`/projects/${project.id}/members/${made.user_id}`)).json()) as Json;
    expect(member.expires_at).toBe("2099-02-02");
    expect(await statusAndBody(await api.post(`${path(project, made.id)}/rotate`))).toEqual([400, { message: "400 Bad request - token already revoked" }]);
  });

  it("answers 401 to a developer and for a missing token, 404 to an administrator", async () => {
    const { w, maintainer } = await setup();
    const developer = await w.user();
    const project = await w.project({ visibility: "private", developers: [developer], maintainers: [maintainer] });
    const made = (await (await w.as(maintainer).post(path(project), { json: { name: "r", scopes: ["api"] } })).json()) as Json;
    expect(await statusAndBody(await w.as(developer).post(`${path(project, made.id)}/rotate`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(maintainer).post(`${path(project, "999999999")}/rotate`))).toEqual([401, { message: "401 Unauthorized" }]);
    const admin = await w.user({ admin: true });
    expect(await statusAndBody(await w.as(admin).post(`${path(project, "999999999")}/rotate`))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await w.as(maintainer).post(`${path(project, made.id)}/rotate`, { json: { expires_at: "x" } }))).toEqual([400, { error: "expires_at is invalid" }]);
  });
});

describe("POST /groups/:id/access_tokens/:token_id/rotate", () => {
  it("rotates a group token for its owner; a week's expiry when none is given", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ visibility: "private", owners: [owner] });
    const made = (await (await w.as(owner).post(groupPath(group), { json: { name: "g", scopes: ["api"] } })).json()) as Json;
    const res = await w.as(owner).post(`${groupPath(group, made.id)}/rotate`);
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as Json;
    expect(rotated.expires_at).toBe(new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
    expect((await client(rotated.token).get("/user")).status).toBe(200);
    expect((await client(made.token).get("/user")).status).toBe(401);
  });
});

describe("git over HTTP with a project access token", () => {
  it("clones as the bot; a Reporter bot may not push; revoked, it is refused", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w, { visibility: "private" });
    const made = (await (await api.post(path(project), { json: { name: "git", scopes: ["read_repository", "write_repository"], access_level: 20 } })).json()) as Json;
    const refs = async (service: string) =>
      (await worker.fetch(new Request(`${BASE}/${project.fullPath}.git/info/refs?service=${service}`, { headers: { Authorization: `Basic ${btoa(`bot:${made.token}`)}`, "Git-Protocol": "version=2" } }))).status;
    expect(await refs("git-upload-pack")).toBe(200);
    expect(await refs("git-receive-pack")).toBe(403);
    expect((await api.delete(path(project, made.id))).status).toBe(204);
    expect(await refs("git-upload-pack")).toBe(401);
  });
});
