import * as z from "zod";
import type { DeployKeysProject, Key, Project } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { ProjectIdentity } from "./projects";
import { UserPublic, userPublic, type UserRow } from "./users";

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
export const SSHKey = z
  .object({ id: z.int(), title: z.string(), created_at: z.string().nullable(), expires_at: z.string().nullable(), key: z.string(), usage_type: z.string() })
  .meta({ id: "SSHKey" });
export function sshKey(key: Key, ctx: KeyContext): z.output<typeof SSHKey> {
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
export const SSHKeyWithUser = SSHKey.extend({ user: UserPublic.nullable() }).meta({ id: "SSHKeyWithUser" });
export function sshKeyWithUser(key: Key, ctx: KeyContext & { user: UserRow | null }): z.output<typeof SSHKeyWithUser> {
  return {
    ...sshKey(key, { ...ctx, userName: ctx.user?.name ?? null }),
    user: ctx.user ? userPublic(ctx.user, ctx) : null,
  };
}

/** The deploy_keys_projects row as Rails serialises it (`expose :deploy_keys_projects` without an entity). */
const DeployKeysProjectLink = z.object({
  id: z.int(),
  deploy_key_id: z.int(),
  project_id: z.int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  can_push: z.boolean(),
});
export function deployKeysProject(link: DeployKeysProject): z.output<typeof DeployKeysProjectLink> {
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
export function deployKeyWithUser(key: Key, ctx: KeyContext & { user: UserRow | null; links: DeployKeysProject[] }): z.output<typeof DeployKeyWithUser> {
  return {
    ...deployKey(key, ctx),
    user: ctx.user ? userPublic(ctx.user, ctx) : null,
    deploy_keys_projects: ctx.links.map(deployKeysProject),
  };
}

/** API::Entities::ProjectIdentity. */
export function projectIdentity(project: ProjectIdentityRow): z.output<typeof ProjectIdentity> {
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
export const DeployKeyEntity = SSHKey.extend({
  fingerprint: z.string().nullable(),
  fingerprint_sha256: z.string(),
  projects_with_write_access: z.array(ProjectIdentity).optional(),
}).meta({ id: "DeployKey" });
export function deployKey(key: Key & { projectsWithWriteAccess?: ProjectIdentityRow[] }, ctx: PresentContext): z.output<typeof DeployKeyEntity> {
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

/** API::Entities::DeployKeyWithUser (deployKeyWithUser above). */
export const DeployKeyWithUser = DeployKeyEntity.extend({ user: UserPublic.nullable(), deploy_keys_projects: z.array(DeployKeysProjectLink) }).meta({
  id: "DeployKeyWithUser",
});

/** API::Entities::DeployKeysProject: the deploy key merged with the link's `can_push`. */
export const DeployKeysProjectEntity = DeployKeyEntity.extend({ can_push: z.boolean() }).meta({ id: "DeployKeysProject" });
export function projectDeployKey(row: Key & { link: DeployKeysProject }, ctx: PresentContext): z.output<typeof DeployKeysProjectEntity> {
  return { ...deployKey(row, ctx), can_push: row.link.canPush };
}
