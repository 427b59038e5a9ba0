import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type TestUser } from "../helpers/world";
import { accessOf, basic, call, registryToken } from "./support";

type Made = { id: number; username: string; token: string };

async function deployToken(w: Awaited<ReturnType<typeof world>>, owner: TestUser, path: string, scopes: string[]): Promise<Made> {
  const res = await w.as(owner).post(`${path}/deploy_tokens`, { json: { name: "registry", scopes } });
  expect(res.status).toBe(201);
  return (await res.json()) as Made;
}

const payloadOf = (token: string) => JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { sub: string };

describe("GET /jwt/auth with a deploy token", () => {
  it("pulls with read_registry, pushes with write_registry, never deletes, and only on its own project", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    const other = await w.project({ owners: [owner] });
    const image = project.fullPath.toLowerCase();
    const reader = await deployToken(w, owner, `/projects/${project.id}`, ["read_registry"]);
    const writer = await deployToken(w, owner, `/projects/${project.id}`, ["read_registry", "write_registry"]);
    const pullToken = await registryToken(basic(reader.token, reader.username), `repository:${image}:pull,push,delete`);
    expect(accessOf(pullToken)).toEqual([{ type: "repository", name: image, actions: ["pull"] }]);
    expect(payloadOf(pullToken).sub).toBe(reader.username);
    const pushToken = await registryToken(basic(writer.token, writer.username), `repository:${image}/app:pull,push,*`, `repository:${other.fullPath.toLowerCase()}:pull,push`);
    expect(accessOf(pushToken)).toEqual([{ type: "repository", name: `${image}/app`, actions: ["pull", "push"] }]);
  });

  it("reaches every project below its group, and nothing outside it", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const sub = await w.group({ parent: group, owners: [owner] });
    const inside = await w.project({ group: sub, owners: [owner] });
    const outside = await w.project({ owners: [owner] });
    const made = await deployToken(w, owner, `/groups/${group.id}`, ["read_registry"]);
    const token = await registryToken(basic(made.token, made.username), `repository:${inside.fullPath.toLowerCase()}:pull`, `repository:${outside.fullPath.toLowerCase()}:pull`);
    expect(accessOf(token)).toEqual([{ type: "repository", name: inside.fullPath.toLowerCase(), actions: ["pull"] }]);
  });

  it("grants nothing without a registry scope or with the registry off; 401 for a wrong login or a revoked token", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    const image = project.fullPath.toLowerCase();
    const packagesOnly = await deployToken(w, owner, `/projects/${project.id}`, ["read_package_registry"]);
    expect(accessOf(await registryToken(basic(packagesOnly.token, packagesOnly.username), `repository:${image}:pull`))).toEqual([]);
    const reader = await deployToken(w, owner, `/projects/${project.id}`, ["read_registry"]);
    expect((await call("GET", `/jwt/auth?service=container_registry&scope=repository:${image}:pull`, basic(reader.token, "someone-else"))).status).toBe(401);
    await w.as(owner).put(`/projects/${project.id}`, { json: { container_registry_enabled: false } });
    expect(accessOf(await registryToken(basic(reader.token, reader.username), `repository:${image}:pull`))).toEqual([]);
    expect((await w.as(owner).delete(`/projects/${project.id}/deploy_tokens/${reader.id}`)).status).toBe(204);
    const [status, body] = await statusAndBody(await call("GET", `/jwt/auth?service=container_registry&scope=repository:${image}:pull`, basic(reader.token, reader.username)));
    expect(status).toBe(401);
    expect(body).toMatchObject({ errors: [{ code: "UNAUTHORIZED" }] });
  });
});
