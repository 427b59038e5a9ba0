import * as z from "zod";
import { requireAdmin, requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, forbidden, notFound, recordNotFound, validation } from "../kernel/errors";
import { findUserByIdOrUsername, loadUserByIdOrUsername, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { INT32, p, pathRowId, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { deployKey, DeployKeyEntity, deployKeyWithUser, DeployKeysProjectEntity, DeployKeyWithUser, projectDeployKey, sshKey, SSHKey, sshKeyWithUser, SSHKeyWithUser } from "../entities/keys";
import * as q from "./queries";
import { createKey, checkKey } from "./services";

/** User keys live in lib/api/users.rb, whose reads `read_user` tokens may use. */
export const userKeysRoutes = router({ readUserScope: true });
/** Deploy keys (lib/api/deploy_keys.rb) and the admin key lookups (lib/api/keys.rb). */
export const keysRoutes = router();

const USAGE_TYPES = ["auth", "signing", "auth_and_signing"] as const;

const KeyId = z.object({ key_id: p.int() });
const AddKey = z.object({
  key: p.string(),
  title: p.string(),
  expires_at: p.datetime().optional(),
  usage_type: p.oneOf(...USAGE_TYPES).optional(),
});

function keyIdOf(raw: string): number | null {
  return pathRowId(raw);
}

/** The `key_id` path parameter (Grape `type: Integer`): anything else is `key_id is invalid`. */
async function readKeyId(c: Ctx): Promise<number> {
  const { key_id } = validateParams({ key_id: c.req.param("key_id") }, KeyId);
  if (key_id > INT32.max || key_id < 0) throw recordNotFound();
  return key_id;
}

// ---------------------------------------------------------------------------------------------
// The caller's keys: /user/keys

/** GET /user/keys (lib/api/users.rb) */
userKeysRoutes.get("/user/keys", { params: pageParams, response: [SSHKey] }, async (c) => {
  const actor = requireUser(c);
  const page = pageOf(await readParams(c, pageParams));
  const list = await q.listUserKeys(c.var.db(), actor.user.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, sshKey, { userName: actor.user.name });
});

/** GET /user/keys/:key_id */
userKeysRoutes.get("/user/keys/:key_id", { response: SSHKey }, async (c) => {
  const actor = requireUser(c);
  const keyId = keyIdOf(c.req.param("key_id"));
  const key = keyId === null ? null : await q.findUserKey(c.var.db(), actor.user.id, keyId);
  if (!key) throw notFound("Key");
  return present(c, key, sshKey, { userName: actor.user.name });
});

/** Keys::CreateService for `user`: 201 with the key, or 400 with the model's errors. */
async function addKey(c: Ctx, user: { id: number; name: string }, params: z.output<typeof AddKey>) {
  const result = await createKey(c.var.db(), {
    userId: user.id,
    type: null,
    title: params.title,
    key: params.key,
    expiresAt: params.expires_at ?? null,
    usageType: params.usage_type,
  });
  if ("errors" in result) throw validation(result.errors);
  return present(c, result.key, sshKey, { userName: user.name }, 201);
}

/** POST /user/keys: 201 with the key, or 400 with the model's errors. */
userKeysRoutes.post("/user/keys", { params: AddKey, response: SSHKey }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, AddKey);
  return addKey(c, actor.user, params);
});

/** DELETE /user/keys/:key_id: 204. */
userKeysRoutes.delete("/user/keys/:key_id", async (c) => {
  const actor = requireUser(c);
  const keyId = await readKeyId(c);
  const key = await q.findUserKey(c.var.db(), actor.user.id, keyId);
  if (!key) throw notFound("Key");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), key.updatedAt);
  await q.deleteKey(c.var.db(), key.id);
  return c.body(null, 204);
});

// ---------------------------------------------------------------------------------------------
// Another user's keys: /users/:id/keys

/** GET /users/:id/keys: anyone may read a user's public keys (`read_user`). */
userKeysRoutes.get("/users/:id/keys", { params: pageParams, response: [SSHKey] }, async (c) => {
  const page = pageOf(await readParams(c, pageParams));
  const user = await findUserByIdOrUsername(c, c.req.param("id"));
  const list = await q.listUserKeys(c.var.db(), user.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, sshKey, { userName: user.name });
});

/** GET /users/:id/keys/:key_id */
userKeysRoutes.get("/users/:id/keys/:key_id", { response: SSHKey }, async (c) => {
  const keyId = await readKeyId(c);
  const user = await findUserByIdOrUsername(c, c.req.param("id"));
  const key = await q.findUserKey(c.var.db(), user.id, keyId);
  if (!key) throw notFound("Key");
  return present(c, key, sshKey, { userName: user.name });
});

/** POST /users/:id/keys: administrators add a key to a user. */
userKeysRoutes.post("/users/:id/keys", { params: AddKey, response: SSHKey }, async (c) => {
  requireUser(c);
  const params = await readParams(c, AddKey);
  requireAdmin(c);
  const id = keyIdOf(c.req.param("id"));
  const user = id === null ? null : await loadUserByIdOrUsername(c, String(id));
  if (!user) throw notFound("User");
  return addKey(c, user, params);
});

/** DELETE /users/:id/keys/:key_id: administrators only; 204. */
userKeysRoutes.delete("/users/:id/keys/:key_id", async (c) => {
  requireUser(c);
  const keyId = await readKeyId(c);
  requireAdmin(c);
  const id = keyIdOf(c.req.param("id"));
  const user = id === null ? null : await loadUserByIdOrUsername(c, String(id));
  if (!user) throw notFound("User");
  const key = await q.findUserKey(c.var.db(), user.id, keyId);
  if (!key) throw notFound("Key");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), key.updatedAt);
  await q.deleteKey(c.var.db(), key.id);
  return c.body(null, 204);
});

// ---------------------------------------------------------------------------------------------
// Admin lookups: /keys/:id, /keys?fingerprint=

/** GET /keys/:id (lib/api/keys.rb): administrators; any key, deploy keys too, as SSHKeyWithUser. */
keysRoutes.get("/keys/:id", { response: SSHKeyWithUser }, async (c) => {
  requireAdmin(c);
  const id = keyIdOf(c.req.param("id"));
  if (id === null) throw apiError("id is invalid", 400);
  const key = await q.findKey(c.var.db(), id);
  if (!key) throw recordNotFound();
  return present(c, key, sshKeyWithUser, { user: await keyUser(c, key) });
});

/**
 * GET /keys?fingerprint= : by SHA256 (`SHA256:` prefix, URL-encoded) or MD5. A deploy key is presented
 * as GitLab's lib/api/keys.rb does (`key.type == "DeployKey"`): DeployKeyWithUser, the stored key with
 * its projects; any other key as SSHKeyWithUser.
 */
const KeyByFingerprint = z.object({ fingerprint: p.string() });
keysRoutes.get("/keys", { params: KeyByFingerprint, response: z.union([SSHKeyWithUser, DeployKeyWithUser]) }, async (c) => {
  requireAdmin(c);
  const { fingerprint } = await readParams(c, KeyByFingerprint);
  const by = fingerprintQuery(fingerprint);
  if (!by) throw apiError("Failed to return the key", 400);
  const key = await q.findKeyByFingerprint(c.var.db(), by);
  if (!key) throw notFound("Key");
  const user = await keyUser(c, key);
  if (key.type !== "DeployKey") return present(c, key, sshKeyWithUser, { user });
  return present(c, key, deployKeyWithUser, { user, links: await q.linksOfKey(c.var.db(), key.id) });
});

/** The user of a key: its owner, or the creator of a deploy key. */
function keyUser(c: Ctx, key: { userId: number | null }) {
  return key.userId === null ? null : q.findUserRow(c.var.db(), key.userId);
}

/** KeysFinder: `SHA256:<base64 of 32 bytes>` or MD5 hex pairs; anything else is an invalid fingerprint. */
function fingerprintQuery(value: string): { md5: string } | { sha256: string } | null {
  if (/^sha256:/i.test(value)) {
    const b64 = value.replace(/sha256:/gi, "");
    try {
      if (atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "=")).length !== 32) return null;
    } catch {
      return null;
    }
    return { sha256: b64.replace(/=+$/, "") };
  }
  return /^([0-9a-f]{2}:){15}[0-9a-f]{2}/i.test(value) ? { md5: value.toLowerCase() } : null;
}

// ---------------------------------------------------------------------------------------------
// Deploy keys

/** GET /deploy_keys: administrators; every deploy key with the projects it may push to. */
const ListDeployKeys = pageParams.extend({ public: p.bool().optional() });
keysRoutes.get("/deploy_keys", { params: ListDeployKeys, response: [DeployKeyEntity] }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, ListDeployKeys);
  const page = pageOf(params);
  const list = await q.listDeployKeys(c.var.db(), !!params.public, page);
  paginate(c, page, list.total);
  return present(c, list.rows, deployKey);
});

/** GET /projects/:id/deploy_keys */
keysRoutes.get("/projects/:id/deploy_keys", { params: pageParams, response: [DeployKeysProjectEntity] }, async (c) => {
  const page = pageOf(await readParams(c, pageParams));
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const list = await q.listProjectDeployKeys(c.var.db(), project.id, page);
  paginate(c, page, list.total);
  return present(c, list.rows, projectDeployKey);
});

/** GET /projects/:id/deploy_keys/:key_id: `find_by!` answers "404 Not found". */
keysRoutes.get("/projects/:id/deploy_keys/:key_id", { response: DeployKeysProjectEntity }, async (c) => {
  const keyId = await readKeyId(c);
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const row = await q.findProjectDeployKey(c.var.db(), project.id, keyId);
  if (!row) throw recordNotFound();
  return present(c, row, projectDeployKey);
});

const AddDeployKey = z.object({
  key: p.string(),
  title: p.string(),
  can_push: p.bool().optional(),
  expires_at: p.datetime().optional(),
});

/**
 * POST /projects/:id/deploy_keys: a key already on the project is answered as is; one the caller can
 * reach elsewhere (public, or on a project they maintain) is enabled here; else a new deploy key.
 */
keysRoutes.post("/projects/:id/deploy_keys", { params: AddDeployKey, response: DeployKeysProjectEntity }, async (c) => {
  const params = await readParams(c, AddDeployKey);
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const actor = c.var.actor!;
  const db = c.var.db();
  const checked = await checkKey(db, { title: params.title, key: params.key, expiresAt: params.expires_at ?? null });
  if (checked.parsed) {
    const existing = await q.findAccessibleDeployKey(db, { userId: actor.user.id, isAdmin: actor.isAdmin }, { fingerprintSha256: checked.parsed.fingerprintSha256 });
    if (existing) {
      const link = await q.linkDeployKey(db, project.id, existing.id, !!params.can_push);
      return present(c, { ...existing, link }, projectDeployKey, undefined, 201);
    }
  }
  const created = await db.transaction(async (tx) => {
    const result = await createKey(tx, {
      userId: actor.user.id,
      type: "DeployKey",
      title: params.title,
      key: params.key,
      expiresAt: params.expires_at ?? null,
    });
    if ("errors" in result) return result;
    const link = await q.linkDeployKey(tx, project.id, result.key.id, !!params.can_push);
    return { row: { ...result.key, link } };
  });
  if ("errors" in created) {
    // Rails names the errors of the nested deploy key `deploy_key.<attribute>`.
    throw validation(Object.fromEntries(Object.entries(created.errors).map(([k, v]) => [`deploy_key.${k}`, v])));
  }
  return present(c, created.row, projectDeployKey, undefined, 201);
});

/** PUT /projects/:id/deploy_keys/:key_id: title and `can_push`; the key must be private and the caller maintain a project of it. */
const UpdateDeployKey = z.object({ title: p.string().optional(), can_push: p.bool().optional() });
keysRoutes.put("/projects/:id/deploy_keys/:key_id", { params: UpdateDeployKey, response: DeployKeyEntity }, async (c) => {
  const keyId = await readKeyId(c);
  const params = await readParams(c, UpdateDeployKey, [
    { atLeastOneOf: ["title", "can_push"] },
  ]);
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const db = c.var.db();
  const row = await q.findProjectDeployKey(db, project.id, keyId);
  if (!row) throw recordNotFound();
  const actor = c.var.actor!;
  if (!actor.isAdmin && !(await q.canUpdateDeployKey(db, actor.user.id, row.id))) throw forbidden();
  const title = params.title ?? row.title;
  if (title.trim() === "" || title.length > 255)
    throw validation({ "deploy_key.title": [title.trim() === "" ? "can't be blank" : "is too long (maximum is 255 characters)"] });
  const canPush = params.can_push ?? row.link.canPush;
  await db.transaction((tx) => q.updateDeployKey(tx, row.link, { title, canPush }));
  return present(c, { ...row, title }, deployKey);
});

/** POST /projects/:id/deploy_keys/:key_id/enable: a deploy key the caller can reach, enabled on this project. */
keysRoutes.post("/projects/:id/deploy_keys/:key_id/enable", { response: SSHKey }, async (c) => {
  const keyId = await readKeyId(c);
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const actor = c.var.actor!;
  const db = c.var.db();
  const key = await q.findAccessibleDeployKey(db, { userId: actor.user.id, isAdmin: actor.isAdmin }, { id: keyId });
  if (!key) throw notFound("Deploy Key");
  await q.linkDeployKey(db, project.id, key.id, false);
  return present(c, key, sshKey, { userName: null }, 201);
});

/** DELETE /projects/:id/deploy_keys/:key_id: 204; a private key left on no project is destroyed. */
keysRoutes.delete("/projects/:id/deploy_keys/:key_id", async (c) => {
  const keyId = await readKeyId(c);
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  const row = await q.findProjectDeployKey(c.var.db(), project.id, keyId);
  if (!row) throw notFound("Deploy Key");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), row.link.updatedAt);
  await q.unlinkDeployKey(c.var.db(), row.link);
  return c.body(null, 204);
});
