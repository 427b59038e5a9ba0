import { generateKey } from "openpgp";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;

/** A fresh armored public key (Curve25519), and the primary key's fingerprint as OpenPGP.js reports it. */
async function newKey(email = "gpg@example.com") {
  const { publicKey } = await generateKey({ type: "curve25519", userIDs: [{ name: "GPG", email }], format: "armored" });
  return publicKey;
}

const FORMAT = "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' and ends with '-----END PGP PUBLIC KEY BLOCK-----'";

describe("POST /user/gpg_keys", () => {
  requiresAuthentication((w) => w.anonymous.post("/user/gpg_keys", { json: { key: "x" } }));

  it("adds a real key (201), stored stripped", async () => {
    const w = await world();
    const u = await w.user();
    const key = await newKey();
    const res = await w.as(u).post("/user/gpg_keys", { json: { key: `\n${key}\n\n` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ id: body.id, key: key.trim(), created_at: body.created_at });
  });

  it("answers 400 with GpgKey's errors: blank, bad format, unreadable key, taken", async () => {
    const w = await world();
    const u = w.as(await w.user());
    expect(await statusAndBody(await u.post("/user/gpg_keys"))).toEqual([400, { error: "key is missing" }]);
    expect(await statusAndBody(await u.post("/user/gpg_keys", { json: { key: "" } }))).toEqual([400, { message: { key: ["can't be blank", FORMAT] } }]);
    expect(await statusAndBody(await u.post("/user/gpg_keys", { json: { key: "ssh-ed25519 AAAA" } }))).toEqual([400, { message: { key: [FORMAT] } }]);
    const garbage = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n-----END PGP PUBLIC KEY BLOCK-----";
    expect(await statusAndBody(await u.post("/user/gpg_keys", { json: { key: garbage } }))).toEqual([
      400,
      { message: { fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] } },
    ]);
    const key = await newKey();
    expect((await u.post("/user/gpg_keys", { json: { key } })).status).toBe(201);
    expect(await statusAndBody(await w.as(w.stranger).post("/user/gpg_keys", { json: { key } }))).toEqual([
      400,
      { message: { key: ["has already been taken"] } },
    ]);
    // The same key armored differently (no trailing checksum line change, a header added) is the same primary key.
    const rearmored = key.replace("-----BEGIN PGP PUBLIC KEY BLOCK-----\n", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: again\n");
    expect(await statusAndBody(await w.as(w.stranger).post("/user/gpg_keys", { json: { key: rearmored } }))).toEqual([
      400,
      { message: { fingerprint: ["has already been taken"], primary_keyid: ["has already been taken"] } },
    ]);
  });
});

describe("GET /user/gpg_keys and /user/gpg_keys/:key_id", () => {
  requiresAuthentication((w) => w.anonymous.get("/user/gpg_keys"));

  it("lists and shows the caller's keys; another user's key is 404 GPG Key Not Found", async () => {
    const w = await world();
    const u = await w.user();
    const a = (await (await w.as(u).post("/user/gpg_keys", { json: { key: await newKey() } })).json()) as Json;
    const b = (await (await w.as(u).post("/user/gpg_keys", { json: { key: await newKey() } })).json()) as Json;
    const list = await w.as(u).get("/user/gpg_keys", { query: { per_page: 1 } });
    expect(list.headers.get("x-total")).toBe("2");
    expect(((await list.json()) as Json[]).map((k) => k.id)).toEqual([a.id]);
    expect(await statusAndBody(await w.as(u).get(`/user/gpg_keys/${b.id}`))).toEqual([200, b]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/user/gpg_keys/${b.id}`))).toEqual([404, { message: "404 GPG Key Not Found" }]);
    expect(await statusAndBody(await w.as(u).get("/user/gpg_keys/x"))).toEqual([400, { error: "key_id is invalid" }]);
  });
});

describe("POST /user/gpg_keys/:key_id/revoke and DELETE /user/gpg_keys/:key_id", () => {
  it("revokes (202) and deletes (204) the caller's keys", async () => {
    const w = await world();
    const u = await w.user();
    const a = (await (await w.as(u).post("/user/gpg_keys", { json: { key: await newKey() } })).json()) as Json;
    const b = (await (await w.as(u).post("/user/gpg_keys", { json: { key: await newKey() } })).json()) as Json;
    expect(await statusAndBody(await w.as(w.stranger).post(`/user/gpg_keys/${a.id}/revoke`))).toEqual([404, { message: "404 GPG Key Not Found" }]);
    expect(await statusAndBody(await w.as(u).post(`/user/gpg_keys/${a.id}/revoke`))).toEqual([202, 202]);
    expect((await w.as(u).delete(`/user/gpg_keys/${b.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(u).get("/user/gpg_keys"))).toEqual([200, []]);
  });
});

describe("/users/:id/gpg_keys", () => {
  it("lets anyone read a user's keys, and administrators add, revoke and delete them", async () => {
    const w = await world();
    const u = await w.user();
    const key = await newKey();
    expect(await statusAndBody(await w.as(u).post(`/users/${u.id}/gpg_keys`, { json: { key } }))).toEqual([403, { message: "403 Forbidden" }]);
    const added = await w.root.post(`/users/${u.id}/gpg_keys`, { json: { key } });
    expect(added.status).toBe(201);
    const row = (await added.json()) as Json;
    expect(await statusAndBody(await w.anonymous.get(`/users/${u.id}/gpg_keys`))).toEqual([200, [row]]);
    expect(await statusAndBody(await w.anonymous.get(`/users/${u.id}/gpg_keys/${row.id}`))).toEqual([200, row]);
    expect(await statusAndBody(await w.anonymous.get(`/users/${w.stranger.id}/gpg_keys/${row.id}`))).toEqual([404, { message: "404 GPG Key Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/users/2147483647/gpg_keys"))).toEqual([404, { message: "404 User Not Found" }]);
    expect(await statusAndBody(await w.as(u).delete(`/users/${u.id}/gpg_keys/${row.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(u).post(`/users/${u.id}/gpg_keys/${row.id}/revoke`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post(`/users/${u.id}/gpg_keys/${row.id}/revoke`))).toEqual([202, 202]);
    const again = (await (await w.root.post(`/users/${u.id}/gpg_keys`, { json: { key } })).json()) as Json;
    expect((await w.root.delete(`/users/${u.id}/gpg_keys/${again.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}/gpg_keys/${again.id}`))).toEqual([404, { message: "404 GPG Key Not Found" }]);
  });
});
