import { describe, expect, it } from "vitest";
import { statusAndBody, worker } from "../helpers/client";
import { world, type TestUser } from "../helpers/world";

type Made = { id: number; username: string; token: string };
const basic = (login: string, password: string) => ({ Authorization: `Basic ${btoa(`${login}:${password}`)}` });
const as = (t: Made) => basic(t.username, t.token);
const get = (path: string, headers: Record<string, string> = {}) => worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { headers }));

function upload(projectId: number, headers: Record<string, string>, name = "hello", version = "1.0", text = "sdist") {
  const form = new FormData();
  form.set("name", name);
  form.set("version", version);
  form.set("content", new File([text], `${name}-${version}.tar.gz`));
  return worker.fetch(new Request(`http://edgeforge.test/api/v4/projects/${projectId}/packages/pypi`, { method: "POST", headers, body: form }));
}

async function setup() {
  const w = await world();
  const owner = await w.user();
  const group = await w.group({ owners: [owner] });
  const project = await w.project({ group, owners: [owner] });
  const other = await w.project({ owners: [owner] });
  const token = async (path: string, scopes: string[]): Promise<Made> => {
    const res = await w.as(owner).post(`${path}/deploy_tokens`, { json: { name: "packages", scopes } });
    expect(res.status).toBe(201);
    return (await res.json()) as Made;
  };
  return { w, owner, group, project, other, token };
}

async function sha256(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("POST /projects/:id/packages/pypi with a deploy token", () => {
  it("uploads with write_package_registry (no creator), 403 with only read_package_registry, 404 on another project", async () => {
    const { w, owner, project, other, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    const reader = await token(`/projects/${project.id}`, ["read_package_registry"]);
    expect(await statusAndBody(await upload(project.id, as(writer)))).toEqual([201, { message: "201 Created" }]);
    const [listed] = (await (await w.as(owner).get(`/projects/${project.id}/packages`)).json()) as { name: string; _links: unknown }[];
    expect(listed).toMatchObject({ name: "hello", version: "1.0" });
    expect(await statusAndBody(await upload(project.id, as(reader), "hello", "2.0"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await upload(other.id, as(writer)))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  it("answers 401 for a revoked token or a login that is not the token's", async () => {
    const { w, owner, project, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    expect((await upload(project.id, basic("someone", writer.token))).status).toBe(401);
    expect((await w.as(owner).delete(`/projects/${project.id}/deploy_tokens/${writer.id}`)).status).toBe(204);
    expect((await upload(project.id, as(writer))).status).toBe(401);
  });
});

describe("GET /projects/:id/packages/pypi with a deploy token", () => {
  it("reads with read_package_registry or write_package_registry, through a group token too; 404 elsewhere", async () => {
    const { group, project, other, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    expect((await upload(project.id, as(writer), "hello", "1.0", "sdist")).status).toBe(201);
    const reader = await token(`/groups/${group.id}`, ["read_package_registry"]);
    const simple = await get(`/projects/${project.id}/packages/pypi/simple/hello`, as(reader));
    expect(simple.status).toBe(200);
    expect(await simple.text()).toContain("hello-1.0.tar.gz</a>");
    const file = await get(`/projects/${project.id}/packages/pypi/files/${await sha256("sdist")}/hello-1.0.tar.gz`, as(reader));
    expect(await file.text()).toBe("sdist");
    // ProjectPolicy's write_package_registry_deploy_token enables read_package too.
    expect((await get(`/projects/${project.id}/packages/pypi/simple`, as(writer))).status).toBe(200);
    expect(await statusAndBody(await get(`/projects/${other.id}/packages/pypi/simple`, as(reader)))).toEqual([404, { message: "404 Project Not Found" }]);
  });

  it("opens nothing else in the API", async () => {
    const { group, project, token } = await setup();
    const reader = await token(`/projects/${project.id}`, ["read_package_registry", "read_repository"]);
    // Basic is not read there: the caller is anonymous, and the private project is hidden.
    expect((await get(`/projects/${project.id}/packages`, as(reader))).status).toBe(404);
    expect((await get(`/projects/${project.id}`, { "PRIVATE-TOKEN": reader.token })).status).toBe(401);
    // A project's token does not reach its group's registry.
    expect(await statusAndBody(await get(`/groups/${group.id}/-/packages/pypi/simple`, as(reader)))).toEqual([404, { message: "404 Group Not Found" }]);
    expect((await get(`/projects/${project.id}/terraform/state/x`, as(reader))).status).toBe(401);
  });
});
