import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { unique, world } from "../helpers/world";

type Json = Record<string, any>;
const address = () => `${unique("mail").toLowerCase()}@example.org`;

describe("POST /user/emails", () => {
  requiresAuthentication((w) => w.anonymous.post("/user/emails", { json: { email: "a@example.org" } }));

  it("adds an unconfirmed address, stored lower-case and stripped (201)", async () => {
    const w = await world();
    const u = await w.user();
    const mail = address();
    const res = await w.as(u).post("/user/emails", { json: { email: `  ${mail.toUpperCase()} ` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ id: body.id, email: mail, confirmed_at: null });
  });

  it("answers 400 with the model's errors: missing, blank, invalid, taken by an address or a primary e-mail", async () => {
    const w = await world();
    const u = await w.user();
    const other = await w.user();
    const mail = address();
    await w.as(other).post("/user/emails", { json: { email: mail } });
    expect(await statusAndBody(await w.as(u).post("/user/emails"))).toEqual([400, { error: "email is missing" }]);
    expect(await statusAndBody(await w.as(u).post("/user/emails", { json: { email: "" } }))).toEqual([
      400,
      { message: { email: ["can't be blank", "is invalid"] } },
    ]);
    expect(await statusAndBody(await w.as(u).post("/user/emails", { json: { email: "not an address" } }))).toEqual([
      400,
      { message: { email: ["is invalid"] } },
    ]);
    expect(await statusAndBody(await w.as(u).post("/user/emails", { json: { email: mail } }))).toEqual([
      400,
      { message: { email: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.as(u).post("/user/emails", { json: { email: other.email.toUpperCase() } }))).toEqual([
      400,
      { message: { email: ["has already been taken"] } },
    ]);
  });

  it("makes the address unavailable as another user's primary e-mail (User.by_any_email)", async () => {
    const w = await world();
    const u = await w.user();
    const other = await w.user();
    const mail = address();
    await w.as(u).post("/user/emails", { json: { email: mail } });
    expect(
      await statusAndBody(await w.root.post("/users", { json: { email: mail.toUpperCase(), username: unique("u").replace(/-/g, "_"), name: "N", password: "a-long-password-1" } })),
    ).toEqual([409, { message: "Email has already been taken" }]);
    // PUT /users/:id answers 404 here, as the spec documents for modifications.
    expect(await statusAndBody(await w.root.put(`/users/${other.id}`, { json: { email: mail } }))).toEqual([
      404,
      { message: "Email has already been taken" },
    ]);
  });
});

describe("GET /user/emails and /user/emails/:email_id", () => {
  requiresAuthentication((w) => w.anonymous.get("/user/emails"));

  it("lists the caller's addresses with pagination and shows one; another user's is 404", async () => {
    const w = await world();
    const u = await w.user();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await (await w.as(u).post("/user/emails", { json: { email: address() } })).json()) as Json).id);
    const page = await w.as(u).get("/user/emails", { query: { per_page: 2, page: 2 } });
    expect(page.headers.get("x-total")).toBe("3");
    expect(((await page.json()) as Json[]).map((e) => e.id)).toEqual([ids[2]]);
    expect(((await (await w.as(u).get(`/user/emails/${ids[0]}`)).json()) as Json).id).toBe(ids[0]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/user/emails/${ids[0]}`))).toEqual([404, { message: "404 Email Not Found" }]);
    expect(await statusAndBody(await w.as(u).get("/user/emails/abc"))).toEqual([400, { error: "email_id is invalid" }]);
  });
});

describe("DELETE /user/emails/:email_id", () => {
  it("removes the address (204) and a public e-mail that used it", async () => {
    const w = await world();
    const u = await w.user();
    const mail = address();
    const id = ((await (await w.as(u).post("/user/emails", { json: { email: mail } })).json()) as Json).id;
    await w.db((db) => db.update(users).set({ publicEmail: mail }).where(eq(users.id, u.id)));
    expect(await statusAndBody(await w.as(w.stranger).delete(`/user/emails/${id}`))).toEqual([404, { message: "404 Email Not Found" }]);
    expect((await w.as(u).delete(`/user/emails/${id}`)).status).toBe(204);
    const [row] = await w.db((db) => db.select({ publicEmail: users.publicEmail }).from(users).where(eq(users.id, u.id)));
    expect(row.publicEmail).toBeNull();
    expect(await statusAndBody(await w.as(u).get("/user/emails"))).toEqual([200, []]);
  });
});

describe("POST /users/:id/emails", () => {
  it("lets administrators add a confirmed address with skip_confirmation", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.root.post(`/users/${u.id}/emails`, { json: { email: address(), skip_confirmation: true } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).confirmed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const plain = (await (await w.root.post(`/users/${u.id}/emails`, { json: { email: address() } })).json()) as Json;
    expect(plain.confirmed_at).toBeNull();
  });

  it("answers 403 to non-administrators, 404 for an unknown user, 400 without email", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).post(`/users/${u.id}/emails`, { json: { email: address() } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post("/users/2147483647/emails", { json: { email: address() } }))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
    expect(await statusAndBody(await w.root.post(`/users/${u.id}/emails`))).toEqual([400, { error: "email is missing" }]);
  });
});

describe("GET /users/:id/emails and DELETE /users/:id/emails/:email_id", () => {
  it("lets administrators list and delete a user's addresses; others get 403", async () => {
    const w = await world();
    const u = await w.user();
    const id = ((await (await w.as(u).post("/user/emails", { json: { email: address() } })).json()) as Json).id;
    expect(((await (await w.root.get(`/users/${u.id}/emails`)).json()) as Json[]).map((e) => e.id)).toEqual([id]);
    expect(await statusAndBody(await w.as(u).get(`/users/${u.id}/emails`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(u).delete(`/users/${u.id}/emails/${id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.delete(`/users/${w.stranger.id}/emails/${id}`))).toEqual([404, { message: "404 Email Not Found" }]);
    expect((await w.root.delete(`/users/${u.id}/emails/${id}`)).status).toBe(204);
  });
});
