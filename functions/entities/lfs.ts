// The JSON of the Git LFS batch API (https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md) as
// Repositories::LfsApiController renders it (GitLab 15.4).

/** LfsRequest's error body. */
export const lfsMessage = (message: string, documentationUrl: string) => ({ message, documentation_url: documentationUrl });

export type BatchObject = { oid: string; size: number };
type Headers = Record<string, string>;

/** A download answer: the action, or GitLab's 404 for an object the project does not see. */
export function downloadObject(object: BatchObject, found: boolean, href: string, header: Headers, anonymousReadable: boolean) {
  if (!found) {
    return { oid: object.oid, size: object.size, error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" } };
  }
  return {
    oid: object.oid,
    size: object.size,
    actions: { download: { href, header } },
    // `Guest.can?(:download_code, project)`: a public project's objects need no credentials.
    ...(anonymousReadable ? { authenticated: true } : {}),
  };
}

/** An upload answer: no action for an object the project already has. */
export function uploadObject(object: BatchObject, present: boolean, href: string, header: Headers) {
  if (present) return { oid: object.oid, size: object.size };
  return { oid: object.oid, size: object.size, actions: { upload: { href, header } } };
}

export const batchResponse = (objects: unknown[]) => ({ objects });

/** The lock fields a lock entity needs (queries.ts's LfsLockRow). */
type LockLike = { id: number; path: string; createdAt: Date; ownerName: string | null };

/** `created_at.to_s(:iso8601)` of a UTC time: seconds, `Z`. */
const iso8601Seconds = (time: Date) => time.toISOString().replace(/\.\d{3}Z$/, "Z");

/** LfsFileLockEntity (app/serializers/lfs_file_lock_entity.rb): `id` is a string, as the locking API wants. */
export const lfsLock = (lock: LockLike) => ({
  path: lock.path,
  id: String(lock.id),
  locked_at: iso8601Seconds(lock.createdAt),
  owner: { name: lock.ownerName },
});
