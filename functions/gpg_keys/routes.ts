import * as z from "zod";
import type { User } from "./queries";
import { requireAdmin, requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, notFound, validation } from "../kernel/errors";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { INT32, isRowId, p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { gpgKey, GpgKeyEntity } from "../entities/gpg_keys";
import * as q from "./queries";
import { createGpgKey } from "./services";

/**
 * GPG keys (lib/api/users.rb, app/models/gpg_key.rb): the caller's under /user/gpg_keys, any user's
 * (read by anyone, written by administrators) under /users/:id/gpg_keys. GETs are open to `read_user`
 * tokens. Deliberate difference from GitLab: no commit signatures are verified, so revoking a key is
 * deleting it (GitLab also marks the key's signatures unverified).
 */
export const gpgKeysRoutes = router({ readUserScope: true });

const KeyId = z.object({ key_id: p.int() });
const AddKey = z.object({ key: p.string() });

async function readKeyId(c: Ctx): Promise<number | null> {
  const { key_id } = await readParamsWithPath(c, KeyId);
  return isRowId(key_id) ? key_id : null;
}

/** `User.find_by(id:)` of the `:id` path parameter: `404 User Not Found`. */
async function findTarget(c: Ctx): Promise<User> {
  const id = Number(c.req.param("id"));
  const user = id <= INT32.max ? await q.findUser(c.var.db(), id) : null;
  if (!user) throw notFound("User");
  return user;
}

/** `user.gpg_keys.find_by(id:)`: `404 GPG Key Not Found`. */
async function findKey(c: Ctx, user: User) {
  const keyId = await readKeyId(c);
  const key = keyId === null ? null : await q.findKey(c.var.db(), user.id, keyId);
  if (!key) throw notFound("GPG Key");
  return key;
}

async function addKey(c: Ctx, user: User, raw: string) {
  const result = await createGpgKey(c.var.db(), user.id, raw);
  if ("errors" in result) throw validation(result.errors);
  return present(c, result.key, gpgKey, undefined, 201);
}

async function list(c: Ctx, user: User) {
  const page = pageOf(await readParams(c, pageParams));
  const { rows, total } = await q.listKeys(c.var.db(), user.id, page);
  paginate(c, page, total);
  return present(c, rows, gpgKey);
}

/** `destroy_conditionally!`: 204 (412 when `If-Unmodified-Since` is older). */
async function destroy(c: Ctx, user: User) {
  const key = await findKey(c, user);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), key.updatedAt);
  await q.deleteKey(c.var.db(), key.id);
  return c.body(null, 204);
}

/** `key.revoke; status :accepted`: Grape renders the block's value, the status code, as the body. */
async function revoke(c: Ctx, user: User) {
  const key = await findKey(c, user);
  await q.deleteKey(c.var.db(), key.id);
  return c.json(202, 202);
}

// ---------------------------------------------------------------------------------------------
// The caller's keys: /user/gpg_keys

/** GET /user/gpg_keys */
gpgKeysRoutes.get("/user/gpg_keys", { params: pageParams, response: [GpgKeyEntity] }, async (c) => list(c, requireUser(c).user));

/** GET /user/gpg_keys/:key_id */
gpgKeysRoutes.get("/user/gpg_keys/:key_id", { params: KeyId, response: GpgKeyEntity }, async (c) => present(c, await findKey(c, requireUser(c).user), gpgKey));

/** POST /user/gpg_keys: 201, or 400 with the model's errors. */
gpgKeysRoutes.post("/user/gpg_keys", { params: AddKey, response: GpgKeyEntity }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, AddKey);
  return addKey(c, actor.user, params.key);
});

/** POST /user/gpg_keys/:key_id/revoke: 202. */
gpgKeysRoutes.post("/user/gpg_keys/:key_id/revoke", { params: KeyId }, async (c) => revoke(c, requireUser(c).user));

/** DELETE /user/gpg_keys/:key_id: 204. */
gpgKeysRoutes.delete("/user/gpg_keys/:key_id", { params: KeyId }, async (c) => destroy(c, requireUser(c).user));

// ---------------------------------------------------------------------------------------------
// A user's keys: /users/:id/gpg_keys

/** GET /users/:id/gpg_keys: anyone may read a user's public keys. */
gpgKeysRoutes.get("/users/:id{[0-9]+}/gpg_keys", { params: pageParams, response: [GpgKeyEntity] }, async (c) => {
  await readParams(c, pageParams);
  return list(c, await findTarget(c));
});

/** GET /users/:id/gpg_keys/:key_id */
gpgKeysRoutes.get("/users/:id{[0-9]+}/gpg_keys/:key_id", { params: KeyId, response: GpgKeyEntity }, async (c) => {
  await readKeyId(c);
  return present(c, await findKey(c, await findTarget(c)), gpgKey);
});

/** POST /users/:id/gpg_keys: administrators add a key to a user. */
gpgKeysRoutes.post("/users/:id{[0-9]+}/gpg_keys", { params: AddKey, response: GpgKeyEntity }, async (c) => {
  const params = await readParams(c, AddKey);
  requireAdmin(c);
  return addKey(c, await findTarget(c), params.key);
});

/** DELETE /users/:id/gpg_keys/:key_id: administrators; 204. */
gpgKeysRoutes.delete("/users/:id{[0-9]+}/gpg_keys/:key_id", { params: KeyId }, async (c) => {
  await readKeyId(c);
  requireAdmin(c);
  return destroy(c, await findTarget(c));
});

/** POST /users/:id/gpg_keys/:key_id/revoke: administrators; 202. */
gpgKeysRoutes.post("/users/:id{[0-9]+}/gpg_keys/:key_id/revoke", { params: KeyId }, async (c) => {
  await readKeyId(c);
  requireAdmin(c);
  return revoke(c, await findTarget(c));
});
