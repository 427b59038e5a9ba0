import { describe, expect, it } from "vitest";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { smallRepo } from "../helpers/git";
import { world } from "../helpers/world";

type Json = Record<string, any>;
const path = (project: { id: number }, id = "") => `/projects/${project.id}/deploy_tokens${id ? `/${id}` : ""}`;
const basic = (login: string, password: string) => `Basic ${btoa(`${login}:${password}`)}`;

async function infoRefs(fullPath: string, service: "git-upload-pack" | "git-receive-pack", authorization: string) {
  const res = await worker.fetch(new Request(`${BASE}/${fullPath}.git/info/refs?service=${service}`, { headers: { Authorization: authorization, "Git-Protocol": "version=2" } }));
  return { status: res.status, text: new TextDecoder().decode(await res.arrayBuffer()) };
}

describe("POST /projects/:id/deploy_tokens", () => {
  it("answers the token once, with GitLab's default username, and stores only its digest", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const res = await api.post(path(project), { json: { name: "deploy", scopes: ["read_repository", "read_package_registry"], expires_at: "2099-01-01T00:00:00Z" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: expect.any(Number),
      name: "deploy",
      username: `gitlab+deploy-token-${body.id}`,
      expires_at: "2099-01-01T00:00:00.000Z",
      scopes: ["read_repository", "read_package_registry"],
      revoked: false,
      expired: false,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
    });
    const shown = (await (await api.get(path(project, String(body.id)))).json()) as Json;
    expect(shown).not.toHaveProperty("token");
    expect(await statusAndBody(await api.post(path(project), { json: { name: "x", scopes: ["api"] } }))).toEqual([400, { error: "scopes does not have a valid value" }]);
    expect(await statusAndBody(await api.post(path(project), { json: { scopes: ["read_repository"] } }))).toEqual([400, { error: "name is missing" }]);
  });
  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(path(p), { json: { name: "x", scopes: ["read_repository"] } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(path(p)));
});

describe("GET and DELETE deploy tokens", () => {
  it("lists a project's and a group's tokens, the instance's for administrators, and deletes (204)", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const made = (await (await api.post(path(project), { json: { name: "one", username: "bot", scopes: ["read_repository"] } })).json()) as Json;
    const list = await api.get(path(project));
    expect(list.headers.get("x-total")).toBe("1");
    expect(((await list.json()) as Json[]).map((t) => t.username)).toEqual(["bot"]);
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const groupToken = await w.as(owner).post(`/groups/${group.id}/deploy_tokens`, { json: { name: "g", scopes: ["read_registry"] } });
    expect(groupToken.status).toBe(201);
    expect(((await (await w.as(owner).get(`/groups/${group.id}/deploy_tokens`)).json()) as Json[]).map((t) => t.name)).toEqual(["g"]);
    expect(await statusAndBody(await api.get("/deploy_tokens"))).toEqual([403, { message: "403 Forbidden" }]);
    const admin = await w.user({ admin: true });
    const all = (await (await w.as(admin).get("/deploy_tokens", { query: { per_page: "100" } })).json()) as Json[];
    expect(all.length).toBeGreaterThan(0);
    expect((await api.delete(path(project, String(made.id)))).status).toBe(204);
    expect(await statusAndBody(await api.get(path(project, String(made.id))))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("git over smart HTTP with a deploy token", () => {
  it("clones the token's project with read_repository, never pushes, and nothing else", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const other = await smallRepo(w);
    const made = (await (await api.post(path(project), { json: { name: "ci", username: "reader", scopes: ["read_repository"] } })).json()) as Json;
    const registryOnly = (await (await api.post(path(project), { json: { name: "r", username: "registry", scopes: ["read_registry"] } })).json()) as Json;
    const auth = basic("reader", made.token);
    expect((await infoRefs(project.fullPath, "git-upload-pack", auth)).status).toBe(200);
    expect(await infoRefs(project.fullPath, "git-receive-pack", auth)).toEqual({ status: 403, text: "You are not allowed to upload code." });
    expect((await infoRefs(other.project.fullPath, "git-upload-pack", auth)).status).toBe(404);
    expect(await infoRefs(project.fullPath, "git-upload-pack", basic("registry", registryOnly.token))).toEqual({
      status: 403,
      text: "You are not allowed to download code from this project.",
    });
    // The token is no API credential.
    expect((await w.as(made.token).get(`/projects/${project.id}`)).status).toBe(401);
    await api.delete(path(project, String(made.id)));
    expect((await infoRefs(project.fullPath, "git-upload-pack", auth)).status).toBe(401);
  });
});
