import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { accessOf, basic, call, registryToken } from "./support";

describe("GET /jwt/auth", () => {
  it("grants each action by the caller's role, silently dropping the others", async () => {
    const w = await world();
    const dev = await w.user();
    const reporter = await w.user();
    const project = await w.project({ developers: [dev], reporters: [reporter] });
    const image = project.fullPath.toLowerCase();
    const devToken = await registryToken(basic(dev.token), `repository:${image}:pull,push,delete`);
    expect(accessOf(devToken)).toEqual([{ type: "repository", name: image, actions: ["pull", "push", "delete"] }]);
    const repToken = await registryToken(basic(reporter.token), `repository:${image}/sub:pull,push`);
    expect(accessOf(repToken)).toEqual([{ type: "repository", name: `${image}/sub`, actions: ["pull"] }]);
  });

  it("gives anonymous callers pull on public projects only, and nothing on private ones", async () => {
    const w = await world();
    const open = await w.project({ visibility: "public" });
    const closed = await w.project();
    const token = await registryToken({}, `repository:${open.fullPath.toLowerCase()}:pull,push`, `repository:${closed.fullPath.toLowerCase()}:pull`);
    expect(accessOf(token)).toEqual([{ type: "repository", name: open.fullPath.toLowerCase(), actions: ["pull"] }]);
  });

  it("honours token scopes: read_registry pulls, write_registry pushes, read_user gets nothing", async () => {
    const w = await world();
    const reader = await w.user({ scopes: ["read_registry"] });
    const other = await w.user({ scopes: ["read_user"] });
    const project = await w.project({ developers: [reader, other] });
    const scope = `repository:${project.fullPath.toLowerCase()}:pull,push`;
    expect(accessOf(await registryToken(basic(reader.token), scope))).toEqual([{ type: "repository", name: project.fullPath.toLowerCase(), actions: ["pull"] }]);
    expect(accessOf(await registryToken(basic(other.token), scope))).toEqual([]);
  });

  it("answers 401 for bad credentials and an empty 404 for another service", async () => {
    const [status, body] = await statusAndBody(await call("GET", "/jwt/auth?service=container_registry", basic("glpat-wrong")));
    expect(status).toBe(401);
    expect(body).toMatchObject({ errors: [{ code: "UNAUTHORIZED" }] });
    const other = await call("GET", "/jwt/auth?service=elsewhere");
    expect(other.status).toBe(404);
    expect(await other.text()).toBe("");
  });
});

describe("PUT /projects/:id container_registry_enabled", () => {
  it("turns the registry off: the entity says so and tokens grant nothing", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    const image = project.fullPath.toLowerCase();
    const res = await w.as(owner).put(`/projects/${project.id}`, { json: { container_registry_enabled: false } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ container_registry_enabled: false, container_registry_access_level: "disabled", container_registry_image_prefix: `edgeforge.test/${image}` });
    expect(accessOf(await registryToken(basic(owner.token), `repository:${image}:pull,push`))).toEqual([]);
    expect((await w.as(owner).get(`/projects/${project.id}/registry/repositories`)).status).toBe(403);
    const back = await w.as(owner).put(`/projects/${project.id}`, { json: { container_registry_access_level: "enabled" } });
    expect(await back.json()).toMatchObject({ container_registry_enabled: true });
  });
});
