// Deploy tokens as credentials (Gitlab::Auth#deploy_token_check, DeployToken#has_access_to?, GitLab 15.4):
// a project's token opens that project, a group's token the projects of the group and its subgroups,
// each only for its scopes. Git over smart HTTP (shared/git_http/access.ts) and the container registry
// use it; the package registries take the token in kernel/auth.ts and check it with the abilities
// (kernel/abilities.ts `callerMay`), whose reach rule this file reuses.
import { eq } from "drizzle-orm";
import { deployTokens, type DeployToken } from "../../../db/schema";
import { deployTokenReaches as reachesProject } from "../../kernel/abilities";
import { sha256Hex } from "../../kernel/auth";
import type { Executor } from "../../kernel/db";

/** `DeployToken::AVAILABLE_SCOPES` (15.4), in GitLab's order. */
export const DEPLOY_TOKEN_SCOPES = ["read_repository", "read_registry", "write_registry", "read_package_registry", "write_package_registry"] as const;
export type DeployTokenScope = (typeof DEPLOY_TOKEN_SCOPES)[number];

/** `DeployToken#active?`: not revoked and not past `expires_at`. */
export const isActive = (token: Pick<DeployToken, "revoked" | "expiresAt">, now = new Date()) => !token.revoked && (!token.expiresAt || token.expiresAt > now);

/** The token whose plaintext is `token`, or null (one statement, by digest). */
export async function findDeployToken(db: Executor, token: string): Promise<DeployToken | null> {
  if (!token) return null;
  const [row] = await db.select().from(deployTokens).where(eq(deployTokens.tokenDigest, await sha256Hex(token))).limit(1);
  return row ?? null;
}

export type DeployTokenCheck =
  /** Username and token match an active token that reaches the project with the scope. */
  | { kind: "ok"; token: DeployToken }
  /** No such token, another username, revoked or expired: the caller's credentials are wrong (401). */
  | { kind: "unknown" }
  /** A valid token for another project, or without the scope (403, or 404 where the project must stay hidden). */
  | { kind: "forbidden"; token: DeployToken };

/**
 * Authenticates a deploy token for `project` and `scope`: `username` (when the protocol sends one,
 * as HTTP Basic does) must be the token's. `project.traversalIds` are its namespace's ancestors and
 * itself (`namespaces.traversal_ids`), so a group token reaches every project below the group.
 */
export async function authenticateDeployToken(
  db: Executor,
  credentials: { username?: string; token: string },
  project: { id: number; traversalIds: number[] },
  scope: DeployTokenScope,
): Promise<DeployTokenCheck> {
  const token = await findDeployToken(db, credentials.token);
  if (!token || !isActive(token) || (credentials.username !== undefined && credentials.username !== token.username)) return { kind: "unknown" };
  return deployTokenAllows(token, project, scope) ? { kind: "ok", token } : { kind: "forbidden", token };
}

/** DeployToken#has_access_to? (its project, or a project below its group) and the scope. */
export function deployTokenReaches(token: DeployToken, project: { id: number; traversalIds: number[] }): boolean {
  return reachesProject(token, { id: project.id, namespace: { traversalIds: project.traversalIds } });
}

export const deployTokenAllows = (token: DeployToken, project: { id: number; traversalIds: number[] }, scope: DeployTokenScope) =>
  deployTokenReaches(token, project) && token.scopes.includes(scope);

