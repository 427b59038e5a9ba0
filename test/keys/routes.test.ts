import { describe, expect, it } from "vitest";
import sshpk from "sshpk";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { FIXTURE_KEYS } from "./fixtures";

/** A fresh ed25519 public key line (unique fingerprint) and its fingerprints. */
function ed25519(comment = "someone@example.com") {
  const pub = sshpk.generatePrivateKey("ed25519").toPublic();
  return {
    key: `${pub.toString("ssh")} ${comment}`,
    sha256: pub.fingerprint("sha256").toString(),
    md5: pub.fingerprint("md5").toString("hex"),
  };
}

describe("POST /user/keys", () => {
  it("adds an ed25519 key: 201 with the publishable key and usage_type", async () => {
    const w = await world();
    const u = await w.user();
    const k = ed25519("secret-mail@example.com");
    const res = await w.as(u).post("/user/keys", { json: { title: "laptop", key: `  ${k.key}\n` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    const [algo, material] = k.key.split(" ");
    expect(body).toMatchObject({ title: "laptop", expires_at: null, usage_type: "auth_and_signing" });
    // The comment is replaced so that e-mail addresses do not leak.
    expect(body.key).toBe(`${algo} ${material} ${u.name} (edgeforge.test)`);
    const found = await w.root.get("/keys", { query: { fingerprint: k.sha256 } });
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ id: body.id, user: { id: u.id, username: u.username } });
  });

  it("accepts RSA 2048+ and ecdsa with expires_at and usage_type", async () => {
    const w = await world();
    const u = await w.user();
    const rsa = await w.as(u).post("/user/keys", { form: { title: "rsa", key: FIXTURE_KEYS.rsa3072.key, usage_type: "signing" } });
    expect(rsa.status).toBe(201);
    expect(await rsa.json()).toMatchObject({ usage_type: "signing" });
    const ec = await w.as(u).post("/user/keys", { json: { title: "ec", key: FIXTURE_KEYS.ec.key, expires_at: "2999-01-02T03:04:05Z" } });
    expect(ec.status).toBe(201);
    expect(await ec.json()).toMatchObject({ expires_at: "2999-01-02T03:04:05.000Z" });
  });

  it("refuses RSA keys under 2048 bits, invalid keys, duplicates and expired keys with the model's messages", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).post("/user/keys", { json: { title: "old", key: FIXTURE_KEYS.rsa1024.key } }))).toEqual([
      400,
      { message: { key: ["must be at least 2048 bits"] } },
    ]);
    expect(await statusAndBody(await w.as(u).post("/user/keys", { json: { title: "x", key: "ssh-rsa AAAAnotakey" } }))).toEqual([
      400,
      { message: { fingerprint: ["cannot be generated"], fingerprint_sha256: ["cannot be generated"] } },
    ]);
    expect(await statusAndBody(await w.as(u).post("/user/keys", { json: { title: "", key: "hello" } }))).toEqual([
      400,
      {
        message: {
          title: ["can't be blank"],
          key: ["is invalid"],
          fingerprint: ["cannot be generated"],
          fingerprint_sha256: ["cannot be generated"],
        },
      },
    ]);
    const k = ed25519();
    expect((await w.as(u).post("/user/keys", { json: { title: "a", key: k.key } })).status).toBe(201);
    const other = await w.user();
    expect(await statusAndBody(await w.as(other).post("/user/keys", { json: { title: "b", key: k.key } }))).toEqual([
      400,
      { message: { fingerprint: ["has already been taken"], fingerprint_sha256: ["has already been taken"] } },
    ]);
    expect(
      await statusAndBody(await w.as(u).post("/user/keys", { json: { title: "c", key: ed25519().key, expires_at: "2001-01-01T00:00:00Z" } })),
    ).toEqual([400, { message: { key: ["has expired"] } }]);
  });

  it("answers Grape's 400 for missing and invalid parameters", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).post("/user/keys", { json: {} }))).toEqual([
      400,
      { error: "key is missing, title is missing" },
    ]);
    expect(
      await statusAndBody(await w.as(w.stranger).post("/user/keys", { json: { key: ed25519().key, title: "t", usage_type: "ssh" } })),
    ).toEqual([400, { error: "usage_type does not have a valid value" }]);
  });

  requiresAuthentication((w) => w.anonymous.post("/user/keys", { json: { title: "t", key: ed25519().key } }));
});

describe("GET /user/keys", () => {
  it("lists the caller's keys with flat statement counts", async () => {
    const w = await world();
    const u = await w.user();
    for (let i = 0; i < 3; i++) await w.as(u).post("/user/keys", { json: { title: `k${i}`, key: ed25519().key } });
    const one = await w.as(u).get("/user/keys", { query: { per_page: 1 } });
    const all = await w.as(u).get("/user/keys", { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(((await all.json()) as { title: string }[]).map((k) => k.title)).toEqual(["k0", "k1", "k2"]);
    expect(one.headers.get("x-query-count")).toBe(all.headers.get("x-query-count"));
    expect(Number(all.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    expect(await (await w.as(w.stranger).get("/user/keys")).json()).toEqual([]);
  });

  requiresAuthentication((w) => w.anonymous.get("/user/keys"));
});

describe("GET /user/keys/:key_id", () => {
  it("answers the caller's key and 404 Key Not Found for another user's", async () => {
    const w = await world();
    const u = await w.user();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "mine", key: ed25519().key } })).json()) as { id: number };
    expect(await (await w.as(u).get(`/user/keys/${created.id}`)).json()).toMatchObject({ id: created.id, title: "mine" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/user/keys/${created.id}`))).toEqual([404, { message: "404 Key Not Found" }]);
  });
});

describe("DELETE /user/keys/:key_id", () => {
  it("answers 204, then 404", async () => {
    const w = await world();
    const u = await w.user();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "x", key: ed25519().key } })).json()) as { id: number };
    expect(await statusAndBody(await w.as(w.stranger).delete(`/user/keys/${created.id}`))).toEqual([404, { message: "404 Key Not Found" }]);
    expect((await w.as(u).delete(`/user/keys/${created.id}`)).status).toBe(204);
    expect((await w.as(u).delete(`/user/keys/${created.id}`)).status).toBe(404);
    expect(await (await w.as(u).get("/user/keys")).json()).toEqual([]);
  });
});

describe("GET /users/:id/keys", () => {
  it("lists a user's keys to anyone, by id or username", async () => {
    const w = await world();
    const u = await w.user();
    await w.as(u).post("/user/keys", { json: { title: "pub", key: ed25519().key } });
    const byId = await w.anonymous.get(`/users/${u.id}/keys`);
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject([{ title: "pub" }]);
    expect(await (await w.as(w.stranger).get(`/users/${u.username}/keys`)).json()).toMatchObject([{ title: "pub" }]);
    expect(await statusAndBody(await w.anonymous.get("/users/999999999/keys"))).toEqual([404, { message: "404 User Not Found" }]);
  });
});

describe("GET /users/:id/keys/:key_id", () => {
  it("answers one key of the user, 404 Key Not Found for a key of someone else", async () => {
    const w = await world();
    const u = await w.user();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "one", key: ed25519().key } })).json()) as { id: number };
    expect(await (await w.anonymous.get(`/users/${u.id}/keys/${created.id}`)).json()).toMatchObject({ id: created.id });
    expect(await statusAndBody(await w.anonymous.get(`/users/${w.stranger.id}/keys/${created.id}`))).toEqual([
      404,
      { message: "404 Key Not Found" },
    ]);
  });
});

describe("POST /users/:id/keys", () => {
  it("lets administrators add a key to a user", async () => {
    const w = await world();
    const u = await w.user();
    const res = await w.root.post(`/users/${u.id}/keys`, { json: { title: "given", key: ed25519().key, usage_type: "auth" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ title: "given", usage_type: "auth" });
    expect(await (await w.as(u).get("/user/keys")).json()).toMatchObject([{ title: "given" }]);
  });

  it("answers 403 for non-admins, 404 for an unknown user", async () => {
    const w = await world();
    const u = await w.user();
    expect(await statusAndBody(await w.as(u).post(`/users/${u.id}/keys`, { json: { title: "t", key: ed25519().key } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect(await statusAndBody(await w.root.post("/users/999999999/keys", { json: { title: "t", key: ed25519().key } }))).toEqual([
      404,
      { message: "404 User Not Found" },
    ]);
  });
});

describe("DELETE /users/:id/keys/:key_id", () => {
  it("lets administrators delete a user's key (204) and refuses others (403)", async () => {
    const w = await world();
    const u = await w.user();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "x", key: ed25519().key } })).json()) as { id: number };
    expect(await statusAndBody(await w.as(u).delete(`/users/${u.id}/keys/${created.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.root.delete(`/users/${u.id}/keys/${created.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.root.delete(`/users/${u.id}/keys/${created.id}`))).toEqual([404, { message: "404 Key Not Found" }]);
  });
});

describe("GET /keys/:id", () => {
  it("answers the key with its user as UserPublic (no is_admin)", async () => {
    const w = await world();
    const u = await w.user();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "x", key: ed25519().key } })).json()) as { id: number };
    const res = await w.root.get(`/keys/${created.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: Record<string, unknown> };
    expect(body).toMatchObject({ id: created.id, title: "x", user: { id: u.id, username: u.username, email: u.email } });
    expect(body.user).not.toHaveProperty("is_admin");
    expect(await statusAndBody(await w.root.get("/keys/999999999"))).toEqual([404, { message: "404 Not found" }]);
  });

  it("answers 403 for non-admins and 401 anonymously", async () => {
    const w = await world();
    expect(await statusAndBody(await w.as(w.stranger).get("/keys/1"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.anonymous.get("/keys/1"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /keys", () => {
  it("finds a key by URL-encoded SHA256 or by MD5", async () => {
    const w = await world();
    const u = await w.user();
    const k = ed25519();
    const created = (await (await w.as(u).post("/user/keys", { json: { title: "fp", key: k.key } })).json()) as { id: number };
    const bySha = await w.root.get(`/keys?fingerprint=${encodeURIComponent(k.sha256)}`);
    expect(await bySha.json()).toMatchObject({ id: created.id, user: { id: u.id } });
    const byMd5 = await w.root.get(`/keys?fingerprint=${encodeURIComponent(k.md5)}`);
    const md5Body = (await byMd5.json()) as object;
    expect(md5Body).toMatchObject({ id: created.id });
    expect(md5Body).not.toHaveProperty("deploy_keys_projects");
  });

  it("presents a deploy key as DeployKeyWithUser: the key as stored, its creator, its deploy_keys_projects", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const other = await w.project({ maintainers: [maintainer] });
    const k = ed25519("deployer@example.com");
    const created = await w.as(maintainer).post(`/projects/${project.id}/deploy_keys`, { json: { title: "deploy", key: k.key, can_push: true } });
    expect(created.status).toBe(201);
    const deployKey = (await created.json()) as { id: number; created_at: string };
    expect((await w.as(maintainer).post(`/projects/${other.id}/deploy_keys`, { json: { title: "again", key: k.key } })).status).toBe(201);
    const res = await w.root.get("/keys", { query: { fingerprint: k.sha256 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: Record<string, unknown>; deploy_keys_projects: Record<string, unknown>[] };
    expect(body).toEqual({
      id: deployKey.id,
      title: "deploy",
      created_at: deployKey.created_at,
      expires_at: null,
      key: k.key,
      usage_type: "auth_and_signing",
      fingerprint: k.md5,
      fingerprint_sha256: k.sha256,
      user: expect.objectContaining({ id: maintainer.id, username: maintainer.username }),
      deploy_keys_projects: [
        { id: expect.any(Number), deploy_key_id: deployKey.id, project_id: project.id, can_push: true, created_at: expect.any(String), updated_at: expect.any(String) },
        { id: expect.any(Number), deploy_key_id: deployKey.id, project_id: other.id, can_push: false, created_at: expect.any(String), updated_at: expect.any(String) },
      ],
    });
    expect(body.user).not.toHaveProperty("is_admin");
    // By MD5 alike.
    expect(await (await w.root.get("/keys", { query: { fingerprint: k.md5 } })).json()).toEqual(body);
  });

  it("presents a deploy key found by id as SSHKeyWithUser (lib/api/keys.rb has no deploy-key branch there)", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const k = ed25519("deployer@example.com");
    const deployKey = (await (await w.as(maintainer).post(`/projects/${project.id}/deploy_keys`, { json: { title: "deploy", key: k.key } })).json()) as { id: number };
    const res = await w.root.get(`/keys/${deployKey.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const [algo, material] = k.key.split(" ");
    expect(body).toMatchObject({ id: deployKey.id, title: "deploy", key: `${algo} ${material} ${maintainer.name} (edgeforge.test)`, user: { id: maintainer.id } });
    expect(Object.keys(body).sort()).toEqual(["created_at", "expires_at", "id", "key", "title", "usage_type", "user"]);
  });

  it("answers 400 for an invalid fingerprint, 404 Key Not Found for an unknown one, 403 for non-admins", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.get("/keys", { query: { fingerprint: "nope" } }))).toEqual([
      400,
      { message: "Failed to return the key" },
    ]);
    expect(await statusAndBody(await w.root.get("/keys", { query: { fingerprint: "SHA256:abc" } }))).toEqual([
      400,
      { message: "Failed to return the key" },
    ]);
    expect(await statusAndBody(await w.root.get("/keys", { query: { fingerprint: ed25519().sha256 } }))).toEqual([
      404,
      { message: "404 Key Not Found" },
    ]);
    expect(await statusAndBody(await w.root.get("/keys"))).toEqual([400, { error: "fingerprint is missing" }]);
    expect(await statusAndBody(await w.as(w.stranger).get("/keys", { query: { fingerprint: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });
});

describe("POST /projects/:id/deploy_keys", () => {
  it("creates a deploy key, then enables the same key on another project of the maintainer instead of duplicating it", async () => {
    const w = await world();
    const m = await w.user();
    const a = await w.project({ maintainers: [m] });
    const b = await w.project({ maintainers: [m] });
    const k = ed25519("ci@example.com");
    const first = await w.as(m).post(`/projects/${a.id}/deploy_keys`, { json: { title: "ci", key: k.key, can_push: true } });
    expect(first.status).toBe(201);
    const created = (await first.json()) as { id: number };
    expect(created).toMatchObject({ title: "ci", key: k.key, can_push: true, fingerprint: k.md5, fingerprint_sha256: k.sha256 });
    const second = await w.as(m).post(`/projects/${b.id}/deploy_keys`, { json: { title: "again", key: k.key } });
    expect(second.status).toBe(201);
    expect(await second.json()).toMatchObject({ id: created.id, title: "ci", can_push: false });
  });

  it("answers the model's errors under deploy_key.", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    expect(await statusAndBody(await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: "x", key: FIXTURE_KEYS.rsa1024.key.replace("AAAAB3", "AAAAB4") } }))).toEqual([
      400,
      { message: { "deploy_key.fingerprint": ["cannot be generated"], "deploy_key.fingerprint_sha256": ["cannot be generated"] } },
    ]);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).post(`/projects/${p.id}/deploy_keys`, { json: { title: "t", key: ed25519().key } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).post(`/projects/${p.id}/deploy_keys`, { json: { title: "t", key: ed25519().key } }));
  requiresAuthentication((w) => w.anonymous.post("/projects/1/deploy_keys", { json: { title: "t", key: "k" } }));
});

describe("GET /projects/:id/deploy_keys", () => {
  it("lists the project's deploy keys with can_push, flat statement counts", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    for (let i = 0; i < 3; i++) await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: `d${i}`, key: ed25519().key } });
    const one = await w.as(m).get(`/projects/${project.id}/deploy_keys`, { query: { per_page: 1 } });
    const all = await w.as(m).get(`/projects/${project.id}/deploy_keys`, { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(((await all.json()) as { title: string; can_push: boolean }[]).map((k) => [k.title, k.can_push])).toEqual([
      ["d0", false],
      ["d1", false],
      ["d2", false],
    ]);
    expect(one.headers.get("x-query-count")).toBe(all.headers.get("x-query-count"));
    expect(Number(all.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).get(`/projects/${p.id}/deploy_keys`));
  requiresAuthentication((w) => w.anonymous.get("/projects/1/deploy_keys"));
});

describe("GET /projects/:id/deploy_keys/:key_id", () => {
  it("answers the key on the project, 404 Not found otherwise", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    const created = (await (await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: "one", key: ed25519().key } })).json()) as { id: number };
    expect(await (await w.as(m).get(`/projects/${project.id}/deploy_keys/${created.id}`)).json()).toMatchObject({ id: created.id, title: "one" });
    expect(await statusAndBody(await w.as(m).get(`/projects/${project.id}/deploy_keys/999999999`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /projects/:id/deploy_keys/:key_id", () => {
  it("updates the title and can_push", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    const created = (await (await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: "one", key: ed25519().key } })).json()) as { id: number };
    const res = await w.as(m).put(`/projects/${project.id}/deploy_keys/${created.id}`, { json: { title: "renamed", can_push: true } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: created.id, title: "renamed" });
    expect(await (await w.as(m).get(`/projects/${project.id}/deploy_keys/${created.id}`)).json()).toMatchObject({ title: "renamed", can_push: true });
    expect(await statusAndBody(await w.as(m).put(`/projects/${project.id}/deploy_keys/${created.id}`, { json: {} }))).toEqual([
      400,
      { error: "title, can_push are missing, at least one parameter must be provided" },
    ]);
  });
});

describe("POST /projects/:id/deploy_keys/:key_id/enable", () => {
  it("enables a key of another project the caller maintains; 404 Deploy Key Not Found for one out of reach", async () => {
    const w = await world();
    const m = await w.user();
    const a = await w.project({ maintainers: [m] });
    const b = await w.project({ maintainers: [m] });
    const created = (await (await w.as(m).post(`/projects/${a.id}/deploy_keys`, { json: { title: "shared", key: ed25519().key } })).json()) as { id: number };
    const res = await w.as(m).post(`/projects/${b.id}/deploy_keys/${created.id}/enable`);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: created.id, title: "shared" });
    expect(await (await w.as(m).get(`/projects/${b.id}/deploy_keys`)).json()).toMatchObject([{ id: created.id }]);

    const other = await w.user();
    const c = await w.project({ maintainers: [other] });
    expect(await statusAndBody(await w.as(other).post(`/projects/${c.id}/deploy_keys/${created.id}/enable`))).toEqual([
      404,
      { message: "404 Deploy Key Not Found" },
    ]);
  });
});

describe("DELETE /projects/:id/deploy_keys/:key_id", () => {
  it("removes the key from the project (204); a private key left on no project is destroyed", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    const k = ed25519();
    const created = (await (await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: "gone", key: k.key } })).json()) as { id: number };
    expect((await w.as(m).delete(`/projects/${project.id}/deploy_keys/${created.id}`)).status).toBe(204);
    expect(await statusAndBody(await w.as(m).delete(`/projects/${project.id}/deploy_keys/${created.id}`))).toEqual([
      404,
      { message: "404 Deploy Key Not Found" },
    ]);
    expect((await w.root.get(`/keys/${created.id}`)).status).toBe(404);
  });
});

describe("GET /deploy_keys", () => {
  it("lists every deploy key with the projects it may push to, for administrators only", async () => {
    const w = await world();
    const m = await w.user();
    const project = await w.project({ maintainers: [m] });
    const k = ed25519();
    const created = (await (await w.as(m).post(`/projects/${project.id}/deploy_keys`, { json: { title: "w", key: k.key, can_push: true } })).json()) as { id: number };
    const all = await w.root.get("/deploy_keys", { query: { per_page: 100 } });
    const listed = ((await all.json()) as { id: number }[]).find((d) => d.id === created.id);
    expect(listed).toMatchObject({ title: "w", projects_with_write_access: [{ id: project.id, path_with_namespace: project.fullPath }] });
    expect(await (await w.root.get("/deploy_keys", { query: { public: true, per_page: 100 } })).json()).not.toContainEqual(
      expect.objectContaining({ id: created.id }),
    );
    expect(await statusAndBody(await w.as(m).get("/deploy_keys"))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("keeps the statement count flat", async () => {
    const w = await world();
    const one = await w.root.get("/deploy_keys", { query: { per_page: 1 } });
    const all = await w.root.get("/deploy_keys", { query: { per_page: 100 } });
    expect(one.headers.get("x-query-count")).toBe(all.headers.get("x-query-count"));
    expect(Number(all.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
  });

  requiresAuthentication((w) => w.anonymous.get("/deploy_keys"));
});
