import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { personalAccessTokens } from "../../db/schema";
import { sha256Hex } from "../../functions/kernel/auth";
import { request, statusAndBody } from "../helpers/client";
import { followPages } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { day, makeToken } from "../helpers/tokens";

type Json = Record<string, unknown>;
const tokenRow = (w: World, id: number) =>
  w.db(async (db) => (await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)))[0]);

describe("POST /users/:user_id/personal_access_tokens", () => {
  it("creates a token for the user: 201 with its value, stored only as a SHA-256 digest", async () => {
    const w = await world();
    const u = await w.user();
    const expiresAt = day(30);
    const res = await w.root.post(`/users/${u.id}/personal_access_tokens`, {
      json: { name: "ci", scopes: ["api", "read_user"], expires_at: expiresAt },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      name: "ci",
      revoked: false,
      scopes: ["api", "read_user"],
      user_id: u.id,
      last_used_at: null,
      active: true,
      expires_at: expiresAt,
    });
    expect(Object.keys(body).sort()).toEqual(
      ["active", "created_at", "expires_at", "id", "last_used_at", "name", "revoked", "scopes", "token", "user_id"].sort(),
    );
    const token = body.token as string;
    expect(token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    const row = await tokenRow(w, body.id as number);
    expect(row.tokenDigest).toBe(await sha256Hex(token));
    const me = (await (await w.as(token).get("/user")).json()) as Json;
    expect(me.id).toBe(u.id);
  });

  it("takes comma-separated scopes", async () => {
    const w = await world();
    const res = await w.root.post(`/users/${w.stranger.id}/personal_access_tokens`, { form: { name: "t", scopes: "read_api,sudo" } });
    expect(((await res.json()) as Json).scopes).toEqual(["read_api", "sudo"]);
  });

  it("answers 400 for missing or unknown parameters and 422 for a blank name or no scope", async () => {
    const w = await world();
    const path = `/users/${w.stranger.id}/personal_access_tokens`;
    expect(await statusAndBody(await w.root.post(path, { json: {} }))).toEqual([400, { error: "name is missing, scopes is missing" }]);
    expect(await statusAndBody(await w.root.post(path, { json: { name: "t", scopes: ["api", "write_everything"] } }))).toEqual([
      400,
      { error: "scopes does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.root.post(path, { json: { name: "t", scopes: ["api"], expires_at: "soon" } }))).toEqual([
      400,
      { error: "expires_at is invalid" },
    ]);
    expect(await statusAndBody(await w.root.post(path, { json: { name: " ", scopes: [] } }))).toEqual([
      422,
      { message: "Name can't be blank and Scopes can't be blank" },
    ]);
  });

  it("is for administrators only (checked before the parameters), and 404 for an unknown user", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).post(`/users/${w.stranger.id}/personal_access_tokens`, { json: {} }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await request("POST", `/users/${w.stranger.id}/personal_access_tokens`, null))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
    expect(await statusAndBody(await w.root.post("/users/0/personal_access_tokens", { json: { name: "t", scopes: ["api"] } }))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
  });
});

describe("GET /personal_access_tokens", () => {
  it("lists the caller's own tokens in id order", async () => {
    const w = await world();
    const u = await w.user();
    const second = await makeToken(w, u.id, { name: "second", revoked: true });
    await makeToken(w, w.stranger.id, { name: "someone else's" });
    const body = (await (await w.as(u).get("/personal_access_tokens")).json()) as Json[];
    expect(body.map((t) => t.name)).toEqual(["test", "second"]);
    expect(body[1]).toMatchObject({ id: second.id, revoked: true, active: false, user_id: u.id });
  });

  it("lets administrators list one user's tokens with user_id", async () => {
    const w = await world();
    const u = await w.user();
    await makeToken(w, u.id, { name: "extra" });
    const body = (await (await w.root.get("/personal_access_tokens", { query: { user_id: u.id } })).json()) as Json[];
    expect(body.map((t) => [t.user_id, t.name])).toEqual([
      [u.id, "test"],
      [u.id, "extra"],
    ]);
  });

  it("filters by state, revoked and name", async () => {
    const w = await world();
    const u = await w.user();
    await makeToken(w, u.id, { name: "expired", expiresAt: day(-1) });
    await makeToken(w, u.id, { name: "revoked", revoked: true });
    const names = async (query: Record<string, string>) =>
      ((await (await w.as(u).get("/personal_access_tokens", { query })).json()) as Json[]).map((t) => t.name);
    expect(await names({ state: "active" })).toEqual(["test"]);
    expect(await names({ state: "inactive" })).toEqual(["expired", "revoked"]);
    expect(await names({ revoked: "true" })).toEqual(["revoked"]);
    expect(await names({ search: "EXP" })).toEqual(["expired"]);
    expect(await statusAndBody(await w.as(u).get("/personal_access_tokens", { query: { state: "gone" } }))).toEqual([
      400,
      { error: "state does not have a valid value" },
    ]);
  });

  it("answers 401 to a user naming another user_id, and to anonymous callers", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).get("/personal_access_tokens", { query: { user_id: w.stranger.id } }))).toEqual([
      401,
      { message: "401 Unauthorized" },
    ]);
    expect((await w.as(u).get("/personal_access_tokens", { query: { user_id: u.id } })).status).toBe(200);
    expect(await statusAndBody(await request("GET", "/personal_access_tokens", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("paginates, with the same statements for 1 and 100 per page", async () => {
    const w = await world();
    const u = await w.user();
    for (let i = 0; i < 2; i++) await makeToken(w, u.id, { name: `t${i}` });
    const first = await w.as(u).get("/personal_access_tokens", { query: { per_page: 1 } });
    expect(first.headers.get("x-total")).toBe("3");
    expect(first.headers.get("x-next-page")).toBe("2");
    const all = await followPages(w, first, u.token);
    expect(all.map((t) => (t as Json).name)).toEqual(["test", "t0", "t1"]);
    const hundred = await w.as(u).get("/personal_access_tokens", { query: { per_page: 100 } });
    expect(first.headers.get("x-query-count")).toBe(hundred.headers.get("x-query-count"));
    expect(Number(hundred.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });
});

describe("GET /personal_access_tokens/:id", () => {
  it("answers the caller's token; another user's or a missing one is 401 to users, 404 to administrators", async () => {
    const w = await world();
    const u = await w.user();
    const mine = await makeToken(w, u.id, { name: "mine", scopes: ["read_api"] });
    const theirs = await makeToken(w, w.stranger.id);
    expect(await (await w.as(u).get(`/personal_access_tokens/${mine.id}`)).json()).toMatchObject({
      id: mine.id,
      name: "mine",
      scopes: ["read_api"],
      user_id: u.id,
    });
    expect(await statusAndBody(await w.as(u).get(`/personal_access_tokens/${theirs.id}`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(u).get("/personal_access_tokens/0"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await w.root.get(`/personal_access_tokens/${theirs.id}`)).status).toBe(200);
    expect(await statusAndBody(await w.root.get("/personal_access_tokens/0"))).toEqual([404, { message: "404 Not Found" }]);
  });
});

describe("last_used_at (PersonalAccessTokens::LastUsedService)", () => {
  it("is recorded after a token is used, and shown by GET /personal_access_tokens/self", async () => {
    const w = await world();
    const user = await w.user();
    const tokenRow = async () =>
      (await w.db((db) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, user.id))))[0];
    expect((await tokenRow()).lastUsedAt).toBeNull();
    const first = await w.as(user).get("/user");
    expect(first.status).toBe(200);
    // Written after the response (waitUntil), on its own connection: poll briefly.
    let used: Date | null = null;
    for (let attempt = 0; attempt < 50 && !used; attempt++) {
      used = (await tokenRow()).lastUsedAt;
      if (!used) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(used).toBeInstanceOf(Date);
    const self = (await (await w.as(user).get("/personal_access_tokens/self")).json()) as { last_used_at: string };
    expect(self.last_used_at).toBe(used!.toISOString());
  });
});

describe("GET /personal_access_tokens/self", () => {
  it("answers the token used, whatever its scopes", async () => {
    const w = await world();
    const u = await w.user();
    const { token, id } = await makeToken(w, u.id, { scopes: ["read_user"], name: "self" });
    expect(await (await w.as(token).get("/personal_access_tokens/self")).json()).toMatchObject({ id, name: "self", user_id: u.id });
    expect(await statusAndBody(await request("GET", "/personal_access_tokens/self", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("DELETE /personal_access_tokens/:id", () => {
  it("revokes the caller's token: 204, and the token no longer authenticates", async () => {
    const w = await world();
    const u = await w.user();
    const { token, id } = await makeToken(w, u.id);
    const res = await w.as(u).delete(`/personal_access_tokens/${id}`);
    expect(res.status).toBe(204);
    expect((await tokenRow(w, id)).revoked).toBe(true);
    expect(await statusAndBody(await w.as(token).get("/user"))).toEqual([
      401,
      { error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." },
    ]);
  });

  it("answers 400 for another user's token, 404 Not found for a missing one; administrators revoke any", async () => {
    const w = await world();
    const u = await w.user();
    const theirs = await makeToken(w, w.stranger.id);
    expect(await statusAndBody(await w.as(u).delete(`/personal_access_tokens/${theirs.id}`))).toEqual([400, { message: "400 Bad request" }]);
    expect((await tokenRow(w, theirs.id)).revoked).toBe(false);
    expect(await statusAndBody(await w.as(u).delete("/personal_access_tokens/0"))).toEqual([404, { message: "404 Not found" }]);
    expect((await w.root.delete(`/personal_access_tokens/${theirs.id}`)).status).toBe(204);
    expect((await tokenRow(w, theirs.id)).revoked).toBe(true);
  });

  it("needs the api scope", async () => {
    const w = await world();
    const { token, id } = await makeToken(w, w.stranger.id, { scopes: ["read_api"] });
    expect(await statusAndBody(await w.as(token).delete(`/personal_access_tokens/${id}`))).toEqual([
      403,
      {
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "api",
      },
    ]);
  });
});

describe("DELETE /personal_access_tokens/self", () => {
  it("revokes the token used, whatever its scopes: 204", async () => {
    const w = await world();
    const { token, id } = await makeToken(w, w.stranger.id, { scopes: ["read_user"] });
    expect((await w.as(token).delete("/personal_access_tokens/self")).status).toBe(204);
    expect((await tokenRow(w, id)).revoked).toBe(true);
    expect(await statusAndBody(await request("DELETE", "/personal_access_tokens/self", null))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
