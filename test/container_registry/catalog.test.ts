import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { accessOf, basic, bearer, call, pushImage, registryToken } from "./support";

describe("GET /jwt/auth (registry:catalog:*)", () => {
  it("grants the catalog to administrators only, and only as `*`", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    const user = await w.user();
    expect(accessOf(await registryToken(basic(admin.token), "registry:catalog:*"))).toEqual([{ type: "registry", name: "catalog", actions: ["*"] }]);
    expect(accessOf(await registryToken(basic(admin.token), "registry:catalog:pull"))).toEqual([]);
    expect(accessOf(await registryToken(basic(admin.token), "registry:other:*"))).toEqual([]);
    expect(accessOf(await registryToken(basic(user.token), "registry:catalog:*"))).toEqual([]);
    expect(accessOf(await registryToken({}, "registry:catalog:*"))).toEqual([]);
  });
});

describe("GET /v2/_catalog", () => {
  it("lists every image path in order, n at a time after last, with a Link to the next page", async () => {
    const w = await world();
    const admin = await w.user({ admin: true });
    const dev = await w.user();
    const group = await w.group();
    const project = await w.project({ group, developers: [dev] });
    const image = project.fullPath.toLowerCase();
    const push = await registryToken(basic(dev.token), `repository:${image}:pull,push`, `repository:${image}/tools:pull,push`);
    await pushImage(`${image}/tools`, push, "v1", "tools");
    await pushImage(image, push, "v1", "main");
    const token = await registryToken(basic(admin.token), "registry:catalog:*");
    // Only this world's group holds paths between its prefix and the next character.
    const from = encodeURIComponent(image.slice(0, -1));
    const all = await call("GET", `/v2/_catalog?n=3&last=${from}`, bearer(token));
    expect(all.status).toBe(200);
    const listed = ((await all.json()) as { repositories: string[] }).repositories;
    expect(listed.slice(0, 2)).toEqual([image, `${image}/tools`]);
    const first = await call("GET", `/v2/_catalog?n=1&last=${from}`, bearer(token));
    expect(await first.json()).toEqual({ repositories: [image] });
    expect(first.headers.get("link")).toBe(`</v2/_catalog?n=1&last=${encodeURIComponent(image)}>; rel="next"`);
    const next = await call("GET", `/v2/_catalog?n=1&last=${encodeURIComponent(image)}`, bearer(token));
    expect(await next.json()).toEqual({ repositories: [`${image}/tools`] });
    expect(await (await call("GET", "/v2/_catalog?n=0", bearer(token))).json()).toEqual({ repositories: [] });
  });

  it("answers 401 with the catalog challenge without the grant", async () => {
    const w = await world();
    const user = await w.user();
    const anonymous = await call("GET", "/v2/_catalog");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="http://edgeforge.test/jwt/auth",service="container_registry",scope="registry:catalog:*"');
    const token = await registryToken(basic(user.token), "registry:catalog:*");
    const [status, body] = await statusAndBody(await call("GET", "/v2/_catalog", bearer(token)));
    expect(status).toBe(401);
    expect(body).toEqual({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] });
    const bad = await call("GET", "/v2/_catalog", bearer("not.a.token"));
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});
