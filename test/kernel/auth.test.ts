import { describe, expect, it } from "vitest";
import { request, statusAndBody, type RequestOptions } from "../helpers/client";
import { world } from "../helpers/world";
import { day, makeToken } from "../helpers/tokens";

type Json = Record<string, unknown>;

const insufficientScope = (scope: string) => ({
  error: "insufficient_scope",
  error_description: "The request requires higher privileges than provided by the access token.",
  scope,
});
const EXPIRED = { error: "invalid_token", error_description: "Token is expired. You can either do re-authorization or token refresh." };
const REVOKED = { error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." };

describe("token forms (docs/compat.md, A1)", () => {
  it("accepts the PRIVATE-TOKEN header, Authorization: Bearer and the private_token parameter", async () => {
    const w = await world();
    const u = await w.user();
    const forms = [
      request("GET", "/user", null, { headers: { "PRIVATE-TOKEN": u.token } }),
      request("GET", "/user", null, { headers: { Authorization: `Bearer ${u.token}` } }),
      request("GET", "/user", null, { query: { private_token: u.token } }),
    ];
    for (const res of await Promise.all(forms)) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).id).toBe(u.id);
    }
  });
});

describe("bad tokens (docs/compat.md, A2)", () => {
  it("answers 401 to an unknown token, even where anonymous callers are welcome", async () => {
    const w = await world();
    expect((await request("GET", `/users/${w.stranger.id}`, null)).status).toBe(200);
    const forms: RequestOptions[] = [
      { headers: { "PRIVATE-TOKEN": "glpat-unknown-token-xxxxx" } },
      { headers: { Authorization: "Bearer glpat-unknown-token-xxxxx" } },
      { query: { private_token: "glpat-unknown-token-xxxxx" } },
    ];
    for (const opts of forms)
      expect(await statusAndBody(await request("GET", `/users/${w.stranger.id}`, null, opts))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("answers the invalid_token bodies to expired and revoked tokens (expiry is tested first)", async () => {
    const w = await world();
    const expired = await makeToken(w, w.stranger.id, { expiresAt: day(-1) });
    const today = await makeToken(w, w.stranger.id, { expiresAt: day(0) });
    const tomorrow = await makeToken(w, w.stranger.id, { expiresAt: day(1) });
    const revoked = await makeToken(w, w.stranger.id, { revoked: true });
    const both = await makeToken(w, w.stranger.id, { revoked: true, expiresAt: day(-3) });
    expect(await statusAndBody(await w.as(expired.token).get("/user"))).toEqual([401, EXPIRED]);
    expect(await statusAndBody(await w.as(today.token).get("/user"))).toEqual([401, EXPIRED]);
    expect((await w.as(tomorrow.token).get("/user")).status).toBe(200);
    expect(await statusAndBody(await w.as(revoked.token).get("/user"))).toEqual([401, REVOKED]);
    expect(await statusAndBody(await w.as(both.token).get("/user"))).toEqual([401, EXPIRED]);
  });

  it("answers 403 to a blocked user's token", async () => {
    const w = await world();
    const blocked = await w.user({ state: "blocked" });
    expect(await statusAndBody(await w.as(blocked).get("/user"))).toEqual([403, { message: "403 Forbidden - Your account has been blocked." }]);
    expect(await statusAndBody(await w.as(blocked).get(`/users/${w.stranger.id}`))).toEqual([
      403,
      { message: "403 Forbidden - Your account has been blocked." },
    ]);
  });
});

describe("scopes (docs/compat.md, A3)", () => {
  it("lets read_api tokens read but not write", async () => {
    const w = await world();
    const { token } = await makeToken(w, w.stranger.id, { scopes: ["read_api"] });
    expect((await w.as(token).get("/personal_access_tokens")).status).toBe(200);
    expect(await statusAndBody(await w.as(token).post(`/users/${w.stranger.id}/block`))).toEqual([403, insufficientScope("api")]);
  });

  it("lets read_user tokens read users, and nothing else", async () => {
    const w = await world();
    const { token } = await makeToken(w, w.stranger.id, { scopes: ["read_user"] });
    expect((await w.as(token).get("/user")).status).toBe(200);
    expect((await w.as(token).get(`/users/${w.stranger.id}`)).status).toBe(200);
    expect((await w.as(token).get("/users")).status).toBe(200);
    expect(await statusAndBody(await w.as(token).get("/personal_access_tokens"))).toEqual([403, insufficientScope("api")]);
    expect(await statusAndBody(await w.as(token).put(`/users/${w.stranger.id}`, { json: {} }))).toEqual([403, insufficientScope("api")]);
  });
});

describe("anonymous callers (docs/compat.md, A4)", () => {
  it("answer 401 to any write, before the parameters are looked at", async () => {
    expect(await statusAndBody(await request("POST", "/users", null, { json: {} }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await request("DELETE", "/personal_access_tokens/self", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("Sudo (docs/compat.md, A5)", () => {
  it("acts as the named user, by id in the header or by username in the parameter", async () => {
    const w = await world();
    const u = await w.user();
    const byHeader = (await (await w.root.get("/user", { headers: { Sudo: String(u.id) } })).json()) as Json;
    expect(byHeader.id).toBe(u.id);
    expect(byHeader).not.toHaveProperty("is_admin");
    const byParam = (await (await w.root.get("/user", { query: { sudo: u.username.toUpperCase() } })).json()) as Json;
    expect(byParam.id).toBe(u.id);
  });

  it("refuses non-admins, admin tokens without the sudo scope, and unknown users", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/user", { headers: { Sudo: "1" } }))).toEqual([
      403,
      { message: "403 Forbidden - Must be admin to use sudo" },
    ]);
    const admin = await w.user({ admin: true, scopes: ["api"] });
    expect(await statusAndBody(await w.as(admin).get("/user", { headers: { Sudo: String(w.stranger.id) } }))).toEqual([
      403,
      insufficientScope("sudo"),
    ]);
    expect(await statusAndBody(await w.root.get("/user", { headers: { Sudo: "no_such_user_x" } }))).toEqual([
      404,
      { message: "404 User with ID or username 'no_such_user_x' Not Found" },
    ]);
    expect(await statusAndBody(await request("GET", "/user", null, { headers: { Sudo: "1" } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
