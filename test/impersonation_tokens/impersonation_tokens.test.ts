import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;

describe("POST /users/:user_id/impersonation_tokens", () => {
  requiresAuthentication((w) => w.anonymous.post("/users/1/impersonation_tokens", { json: { name: "x", scopes: ["api"] } }));

  it("creates a token (201, shown once) that authenticates as the user", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "imp", scopes: ["api", "read_user"], expires_at: "2099-01-01" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: body.id,
      name: "imp",
      revoked: false,
      created_at: body.created_at,
      scopes: ["api", "read_user"],
      user_id: u.id,
      last_used_at: null,
      active: true,
      expires_at: "2099-01-01",
      impersonation: true,
      token: body.token,
    });
    const me = (await (await w.as(body.token).get("/user")).json()) as Json;
    expect(me.id).toBe(u.id);
  });

  it("answers 400 with the model's errors, 403 to non-administrators, 404 for an unknown user", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: " " } }))).toEqual([
      400,
      { message: { name: ["can't be blank"], scopes: ["can't be blank"] } },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "x", scopes: "api,nope" } }))).toEqual([
      400,
      { message: { scopes: ["can only contain available scopes"] } },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { scopes: ["api"] } }))).toEqual([
      400,
      { error: "name is missing" },
    ]);
    expect(await statusAndBody(await w.as(u).post(`/users/${u.id}/impersonation_tokens`, { json: { name: "x", scopes: ["api"] } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await w.root.post("/users/2147483647/impersonation_tokens", { json: { name: "x", scopes: ["api"] } }))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
  });
});

describe("GET /users/:user_id/impersonation_tokens", () => {
  it("lists only impersonation tokens, filtered by state", async () => {
    const w = await world();
    const u = await w.user();
    const a = (await (await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "a", scopes: ["api"] } })).json()) as Json;
    const b = (await (await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "b", scopes: ["api"] } })).json()) as Json;
    await w.root.delete(`/users/${u.id}/impersonation_tokens/${b.id}`);
    const ids = async (state?: string) =>
      ((await (await w.root.get(`/users/${u.id}/impersonation_tokens`, { query: state ? { state } : {} })).json()) as Json[]).map((t) => t.id);
    expect(await ids()).toEqual([a.id, b.id]);
    expect(await ids("active")).toEqual([a.id]);
    expect(await ids("inactive")).toEqual([b.id]);
    expect(await statusAndBody(await w.root.get(`/users/${u.id}/impersonation_tokens`, { query: { state: "x" } }))).toEqual([
      400,
      { error: "state does not have a valid value" },
    ]);
    expect(await statusAndBody(await w.as(u).get(`/users/${u.id}/impersonation_tokens`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET and DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id", () => {
  it("shows a token and revokes it (204): the token is then refused", async () => {
    const w = await world();
    const u = await w.user();
    const t = (await (await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "t", scopes: ["api"] } })).json()) as Json;
    const shown = (await (await w.root.get(`/users/${u.id}/impersonation_tokens/${t.id}`)).json()) as Json;
    expect(shown).toMatchObject({ id: t.id, impersonation: true, active: true });
    expect(shown.token).toBeUndefined();
    expect((await w.root.delete(`/users/${u.id}/impersonation_tokens/${t.id}`)).status).toBe(204);
    expect((await w.as(t.token).get("/user")).status).toBe(401);
    expect(((await (await w.root.get(`/users/${u.id}/impersonation_tokens/${t.id}`)).json()) as Json).revoked).toBe(true);
  });

  it("answers 404 Impersonation Token Not Found for another user's or a personal token", async () => {
    const w = await world();
    const u = await w.user();
    const t = (await (await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "t", scopes: ["api"] } })).json()) as Json;
    const pat = (await (await w.root.post(`/users/${u.id}/personal_access_tokens`, { json: { name: "p", scopes: ["api"] } })).json()) as Json;
    const notFound = [404, { message: "404 Impersonation Token Not Found" }];
    expect(await statusAndBody(await w.root.get(`/users/${w.stranger.id}/impersonation_tokens/${t.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.root.get(`/users/${u.id}/impersonation_tokens/${pat.id}`))).toEqual(notFound);
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}/impersonation_tokens/2147483647`))).toEqual(notFound);
  });
});

describe("impersonation tokens in GET /personal_access_tokens", () => {
  it("are left out of the user's own list and may not be revoked by the user (400); administrators see them", async () => {
    const w = await world();
    const u = await w.user();
    const t = (await (await w.root.post(`/users/${u.id}/impersonation_tokens`, { json: { name: "t", scopes: ["api"] } })).json()) as Json;
    const own = ((await (await w.as(u).get("/personal_access_tokens")).json()) as Json[]).map((x) => x.id);
    expect(own).not.toContain(t.id);
    expect(await statusAndBody(await w.as(u).delete(`/personal_access_tokens/${t.id}`))).toEqual([400, { message: "400 Bad request" }]);
    const all = ((await (await w.root.get("/personal_access_tokens", { query: { user_id: u.id } })).json()) as Json[]).map((x) => x.id);
    expect(all).toContain(t.id);
  });
});
