import type { User } from "../../db/schema";
import type { Database } from "../kernel/db";
import { apiError, validation } from "../kernel/errors";
import type { UserIdentity, UserRow } from "../entities/users";
import * as q from "./queries";

/**
 * Multi-table writes of the users domain, each in one transaction: a user and their personal namespace
 * are created together, a rename carries the namespace and its projects along, and a deletion takes
 * the memberships of everything that goes with the user.
 */

/** The message GitLab gives when the username is the path of another namespace (User#set_username_errors). */
export const NAMESPACE_TAKEN = { base: ["A user, alias, or group already exists with that username."] };

/** Postgres unique violations on the indexes that guard e-mails, usernames and namespace paths. */
function uniqueViolation(err: unknown): string | null {
  for (let e = err as { code?: string; constraint?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === "23505") return e.constraint ?? "";
  }
  return null;
}

/**
 * What GitLab answers when the e-mail, the username or the namespace path is taken: 409 for the
 * e-mail, then the username, else the validation error of the namespace path.
 */
export function throwConflict(conflicts: q.Conflicts, status: 404 | 409 = 409): void {
  // Differs from GitLab: PUT /users/:id passes 404 here, as the spec documents ("modification
  // currently returns 404 even where 409 would fit"); GitLab 15.4 answers 409 with the same text.
  if (conflicts.email) throw apiError("Email has already been taken", status);
  if (conflicts.username) throw apiError("Username has already been taken", status);
  if (conflicts.namespace) throw validation(NAMESPACE_TAKEN);
}

/** `Users::CreateService`: the user, their personal namespace and the identity, together. */
export async function createUser(
  db: Database,
  values: q.NewUser,
  identity: { provider: string; externUid: string } | null,
): Promise<UserRow> {
  try {
    const user = await db.transaction(async (tx) => {
      const created = await q.insertUser(tx, values);
      await q.insertPersonalNamespace(tx, created);
      if (identity) await q.insertIdentity(tx, created.id, identity.provider, identity.externUid);
      return created;
    });
    const identities: UserIdentity[] = identity
      ? [{ provider: identity.provider, extern_uid: identity.externUid, saml_provider_id: null }]
      : [];
    return { ...user, identities, personalProjectsCount: 0, highestRole: 0, customAttributes: null };
  } catch (err) {
    // A unique index refused the row: the e-mail, username or path was taken (the route checks
    // beforehand only when it already answers 400, to keep the happy path short).
    if (uniqueViolation(err) === null) throw err;
    throwConflict(await q.findConflicts(db, { email: values.email, username: values.username }));
    throw err;
  }
}

/**
 * `Users::UpdateService`: the user's columns, then (when the username or name changed) the personal
 * namespace and its projects' paths, and the identity of `provider`.
 */
export async function updateUser(
  db: Database,
  current: UserRow,
  set: Partial<q.NewUser>,
  identity: { provider: string; externUid: string } | null,
): Promise<UserRow> {
  try {
    const user: User = await db.transaction(async (tx) => {
      const updated = Object.keys(set).length > 0 ? await q.updateUser(tx, current.id, set) : current;
      const renamed = updated.username !== current.username || updated.name !== current.name;
      await q.updateNamespaceAndIdentity(tx, current.id, {
        namespace: renamed ? { path: updated.username, name: updated.name } : undefined,
        identity: identity ?? undefined,
      });
      return updated;
    });
    let identities = current.identities;
    if (identity) {
      const kept = identities.filter((i) => i.provider !== identity.provider);
      const previous = identities.find((i) => i.provider === identity.provider);
      identities = [...kept, { provider: identity.provider, extern_uid: identity.externUid, saml_provider_id: previous?.saml_provider_id ?? null }];
    }
    return { ...current, ...user, identities };
  } catch (err) {
    if (uniqueViolation(err) === null) throw err;
    throwConflict(await q.findConflicts(db, { email: set.email, username: set.username }, current.id), 404);
    throw err;
  }
}

/**
 * `Users::DestroyService` (run inline; GitLab queues it): with `deleteGroupIds` (hard delete) the
 * groups the user solely owns go too. Contributions elsewhere follow each table's foreign key.
 */
export async function deleteUser(db: Database, userId: number, deleteGroupIds: number[]): Promise<void> {
  await db.transaction(async (tx) => {
    await q.deleteOwnedSources(tx, userId, deleteGroupIds);
    await q.deleteUserRow(tx, userId);
  });
}
