// The Git LFS File Locking API (https://github.com/git-lfs/git-lfs/blob/main/docs/api/locking.md) as
// GitLab 15.4 serves it: Repositories::LfsLocksApiController with Lfs::LockFileService,
// Lfs::UnlockFileService and Lfs::LocksFinderService, at `/<full_path>.git/info/lfs/locks…`. Listing is a
// download request (readers); creating, verifying and unlocking are upload requests (push access), as
// LfsRequest's `lfs_check_access!` decides. git-lfs calls these for `git lfs lock`, `locks`, `unlock`
// and, with `lfs.<url>.locksverify`, before every push.
// Not built: EE's path locks kept in step with LFS locks (the `file_locks` feature).
import { Hono } from "hono";
import { allowed } from "../../kernel/abilities";
import type { AppEnv, Ctx } from "../../kernel/env";
import { rejectMalformedBody } from "../../kernel/params";
import { baseUrl } from "../../kernel/present";
import { LfsError, guarded, lfsAccess, lfsJson, repoPath } from "../access";
import { lfsLock, lfsMessage } from "../../entities/lfs";
import * as q from "../queries";

export const lockRoutes = new Hono<AppEnv>();

/** Rails' `params`: the query string, then the JSON body over it (git-lfs sends JSON bodies). */
async function lockParams(c: Ctx): Promise<Record<string, unknown>> {
  const query: Record<string, unknown> = c.req.query();
  if (c.req.method !== "POST") return query;
  const text = await c.req.text();
  if (!text.trim()) return query;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LfsError(422, "Validation error: the request body is not JSON.");
  }
  rejectMalformedBody(body);
  return body && typeof body === "object" && !Array.isArray(body) ? { ...query, ...body } : query;
}

/** A row id as ActiveRecord's `find` takes it from the path; anything else finds nothing. */
const lockId = (value: unknown): number | null =>
  typeof value === "string" && /^\d{1,10}$/.test(value) && Number(value) <= 2_147_483_647 ? Number(value) : null;

/** The error payload with the lock it is about (`error_payload(message, data)`). */
const lockError = (c: Ctx, status: 403 | 404 | 409, message: string, extra: Record<string, unknown> = {}) =>
  lfsJson({ ...extra, ...lfsMessage(message, `${baseUrl(c)}/help`) }, status);

/**
 * GET /<path>.git/info/lfs/locks (LfsLocksApiController#index): `{"locks": [...]}`, filtered by `id`
 * and `path`. GitLab ignores git-lfs's `cursor`, `limit` and `refspec`, and so does this.
 */
lockRoutes.get("/:repo{.+\\.git}/info/lfs/locks", (c) =>
  guarded(c, async () => {
    const { project } = await lfsAccess(c, repoPath(c), "download");
    const params = await lockParams(c);
    const filter: { id?: number; path?: string } = {};
    if (typeof params.path === "string" && params.path !== "") filter.path = params.path;
    if (typeof params.id === "string" && params.id !== "") {
      const id = lockId(params.id);
      if (id === null) return lfsJson({ locks: [] });
      filter.id = id;
    }
    const locks = await q.findLocks(c.var.db(), project.id, filter);
    return lfsJson({ locks: locks.map(lfsLock) });
  }),
);

/**
 * POST /<path>.git/info/lfs/locks (#create, Lfs::LockFileService): 201 `{"lock": …}`; a path locked
 * already (by anyone) is 409 with that lock, "already locked". Differs from GitLab: a missing, blank or
 * over-long `path` is 422 with ActiveRecord's message (GitLab lets the failed save answer 500).
 */
lockRoutes.post("/:repo{.+\\.git}/info/lfs/locks", (c) =>
  guarded(c, async () => {
    const { project, actor } = await lfsAccess(c, repoPath(c), "upload");
    const params = await lockParams(c);
    const path = params.path;
    if (typeof path !== "string" || path.trim() === "") throw new LfsError(422, "Validation failed: Path can't be blank");
    if ([...path].length > 511) throw new LfsError(422, "Validation failed: Path is too long (maximum is 511 characters)");
    // lfsAccess admits uploads from signed-in callers only.
    const userId = actor!.user.id;
    const db = c.var.db();
    // A lock taken or released concurrently between the insert and the read: one more try sees it.
    const result = (await q.createLock(db, project.id, userId, path)) ?? (await q.createLock(db, project.id, userId, path));
    if (!result) throw new LfsError(409, "already locked");
    if (!result.created) return lockError(c, 409, "already locked", { lock: lfsLock(result.lock) });
    return lfsJson({ lock: lfsLock(result.lock) }, 201);
  }),
);

/**
 * POST /<path>.git/info/lfs/locks/verify (#verify): every lock of the project split into the caller's
 * (`ours`) and others' (`theirs`); git-lfs refuses a push that changes a file in `theirs`.
 */
lockRoutes.post("/:repo{.+\\.git}/info/lfs/locks/verify", (c) =>
  guarded(c, async () => {
    const { project, actor } = await lfsAccess(c, repoPath(c), "upload");
    await lockParams(c);
    const locks = await q.findLocks(c.var.db(), project.id);
    const userId = actor!.user.id;
    return lfsJson({ ours: locks.filter((l) => l.userId === userId).map(lfsLock), theirs: locks.filter((l) => l.userId !== userId).map(lfsLock) });
  }),
);

/**
 * POST /<path>.git/info/lfs/locks/:id/unlock (#unlock, Lfs::UnlockFileService): the owner releases a
 * lock; another user needs `force: true` and maintainer access (`admin_project`). 200 `{"lock": …}`.
 */
lockRoutes.post("/:repo{.+\\.git}/info/lfs/locks/:id/unlock", (c) =>
  guarded(c, async () => {
    const { project, actor } = await lfsAccess(c, repoPath(c), "upload");
    const params = await lockParams(c);
    const id = lockId(c.req.param("id"));
    const db = c.var.db();
    const [lock] = id === null ? [] : await q.findLocks(db, project.id, { id });
    if (!lock) return lockError(c, 404, "Lock not found");
    // `params[:force] == true`: only JSON's true forces.
    const forced = params.force === true;
    const user = actor!.user;
    if (lock.userId !== user.id) {
      if (!forced) return lockError(c, 403, `${lock.path} is locked by GitLab User ${lock.userId}`);
      if (!allowed(actor, "admin_project", project)) return lockError(c, 403, "You must have maintainer access to force delete a lock");
    }
    // Released concurrently: the lock was found, so answer as the release that won did.
    await q.deleteLock(db, project.id, lock.id);
    return lfsJson({ lock: lfsLock(lock) });
  }),
);
