import type { DeployKeysProject, Key, Project } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { userPublic, type UserRow } from "./users";

export type KeyUserRow = UserRow;
export type ProjectIdentityRow = Pick<Project, "id" | "description" | "name" | "nameWithNamespace" | "path" | "fullPath" | "createdAt">;

/**
 * `Key#publishable_key`: the algorithm and key material, with the comment replaced by
 * `<user name> (<host>)` so that an e-mail address in a comment does not leak.
 */
function publishableKey(key: Key, userName: string | null, ctx: PresentContext): string {
  const [algorithm, material] = key.key.split(" ");
  if (userName === null) return `${algorithm} ${material}`;
  return `${algorithm} ${material} ${userName} (${new URL(ctx.baseUrl).host})`;
}

export type KeyContext = PresentContext & { userName?: string | null };

/** API::Entities::SSHKey (lib/api/entities/ssh_key.rb). */
export function sshKey(key: Key, ctx: KeyContext) {
  return {
    id: key.id,
    title: key.title,
    created_at: isoTime(key.createdAt),
    expires_at: isoTime(key.expiresAt),
    key: publishableKey(key, ctx.userName ?? null, ctx),
    usage_type: key.usageType,
  };
}

/**
 * API::Entities::SSHKeyWithUser: the key in its publishable form with its user as
 * API::Entities::UserPublic (no `is_admin`: spec/requests/api/keys_spec.rb). `GET /keys/:id` presents
 * every key so, deploy keys included.
 */
export function sshKeyWithUser(key: Key, ctx: KeyContext & { user: UserRow | null }) {
  return {
    ...sshKey(key, { ...ctx, userName: ctx.user?.name ?? null }),
    user: ctx.user ? userPublic(ctx.user, ctx) : null,
  };
}

/** The deploy_keys_projects row as Rails serialises it (`expose :deploy_keys_projects` without an entity). */
export function deployKeysProject(link: DeployKeysProject) {
  return {
    id: link.id,
    deploy_key_id: link.deployKeyId,
    project_id: link.projectId,
    created_at: isoTime(link.createdAt),
    updated_at: isoTime(link.updatedAt),
    can_push: link.canPush,
  };
}

/**
 * API::Entities::DeployKeyWithUser (`GET /keys?fingerprint=` of a deploy key): API::Entities::DeployKey,
 * so the key as it was stored, with its creator as API::Entities::UserPublic and its
 * `deploy_keys_projects`.
 */
export function deployKeyWithUser(key: Key, ctx: KeyContext & { user: UserRow | null; links: DeployKeysProject[] }) {
  return {
    ...deployKey(key, ctx),
    user: ctx.user ? userPublic(ctx.user, ctx) : null,
    deploy_keys_projects: ctx.links.map(deployKeysProject),
  };
}

/** API::Entities::ProjectIdentity. */
export function projectIdentity(project: ProjectIdentityRow) {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: project.nameWithNamespace,
    path: project.path,
    path_with_namespace: project.fullPath,
    created_at: isoTime(project.createdAt),
  };
}

/** API::Entities::DeployKey: the stored key line (no publishable rewrite) and its fingerprints. */
export function deployKey(key: Key & { projectsWithWriteAccess?: ProjectIdentityRow[] }, ctx: PresentContext) {
  return {
    id: key.id,
    title: key.title,
    created_at: isoTime(key.createdAt),
    expires_at: isoTime(key.expiresAt),
    key: key.key,
    usage_type: key.usageType,
    fingerprint: key.fingerprint,
    fingerprint_sha256: `SHA256:${key.fingerprintSha256}`,
    ...(key.projectsWithWriteAccess ? { projects_with_write_access: key.projectsWithWriteAccess.map(projectIdentity) } : {}),
  };
}

/** API::Entities::DeployKeysProject: the deploy key merged with the link's `can_push`. */
export function projectDeployKey(row: Key & { link: DeployKeysProject }, ctx: PresentContext) {
  return { ...deployKey(row, ctx), can_push: row.link.canPush };
}
