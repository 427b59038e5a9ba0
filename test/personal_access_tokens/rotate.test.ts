import { describe, expect, it } from "vitest";
import { client, statusAndBody } from "../helpers/client";
import { makeToken } from "../helpers/tokens";
import { world } from "../helpers/world";

type Json = Record<string, any>;

describe("POST /personal_access_tokens/:id/rotate", () => {
  it("revokes the token and answers a new one with its name and scopes", async () => {
    const w = await world();
    const user = await w.user();
    const old = await makeToken(w, user.id, { name: "laptop", scopes: ["read_api"] });
    const res = await w.as(user).post(`/personal_access_tokens/${old.id}/rotate`, { json: { expires_at: "2099-03-03" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ name: "laptop", scopes: ["read_api"], user_id: user.id, revoked: false, active: true, expires_at: "2099-03-03", token: expect.stringMatching(/^glpat-/) });
    expect((await client(old.token).get("/user")).status).toBe(401);
    expect(((await (await client(body.token).get("/user")).json()) as Json).id).toBe(user.id);
    expect(await statusAndBody(await w.as(user).post(`/personal_access_tokens/${old.id}/rotate`))).toEqual([400, { message: "400 Bad request - token already revoked" }]);
  });

  it("answers 401 for another user's or a missing token, 404 to an administrator, 400 for a bad date", async () => {
    const w = await world();
    const user = await w.user();
    const other = await w.user();
    const theirs = await makeToken(w, other.id);
    expect(await statusAndBody(await w.as(user).post(`/personal_access_tokens/${theirs.id}/rotate`))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(user).post("/personal_access_tokens/999999999/rotate"))).toEqual([401, { message: "401 Unauthorized" }]);
    const admin = await w.user({ admin: true });
    expect(await statusAndBody(await w.as(admin).post("/personal_access_tokens/999999999/rotate"))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await w.as(user).post(`/personal_access_tokens/${theirs.id}/rotate`, { json: { expires_at: "nope" } }))).toEqual([400, { error: "expires_at is invalid" }]);
    expect(await statusAndBody(await client(null).post(`/personal_access_tokens/${theirs.id}/rotate`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
