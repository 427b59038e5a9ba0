// Who may pull, push and delete which image (Auth::ContainerRegistryAuthenticationService): the
// caller of `/jwt/auth` is anonymous, a personal access token (HTTP Basic, any login), or a running
// CI job (`gitlab-ci-token:<job token>`); each requested action is granted or silently dropped.
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { sha256Hex } from "../kernel/auth";
import type { Actor, Ctx } from "../kernel/env";
import { projectWithAccess } from "../kernel/lookup";
import type { DeployToken } from "../../db/schema";
import { deployTokenAllows, findDeployToken, isActive } from "../shared/deploy_tokens";
import { actorFromBasic, GitHttpError } from "../shared/git_http/access";
import { findRunningJobWithUser } from "../shared/git_http/queries";
import type { RegistryAccess } from "./jwt";
import * as q from "./queries";

/**
 * The authenticated caller of `/jwt/auth`: a user (`jobProjectId` when a CI job token authenticated),
 * or a deploy token, which is no user and acts only through its own scopes on the projects it reaches.
 */
export type RegistryActor = { actor: Actor; jobProjectId: number | null; deployToken?: undefined } | { actor: null; jobProjectId: null; deployToken: DeployToken };

/** ContainerRegistry::Path's name: lowercase components separated by `/`, `.`, `_`, `__` or dashes inside. */
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

export function validImageName(name: string): boolean {
  return name.length <= 255 && name.split("/").every((part) => COMPONENT.test(part));
}

/**
 * The caller from the Basic header; null without one; "denied" for credentials that do not
 * authenticate (unknown, expired or revoked token, a job that no longer runs, a blocked user).
 * A deploy token's username as the login and the token as the password (Gitlab::Auth#deploy_token_check)
 * authenticate as that token, before personal access tokens are tried.
 */
export async function registryActor(c: Ctx): Promise<RegistryActor | null | "denied"> {
  const match = /^Basic\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    return "denied";
  }
  const colon = decoded.indexOf(":");
  const login = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? "" : decoded.slice(colon + 1);
  if (login === "gitlab-ci-token") {
    const job = password ? await findRunningJobWithUser(c.var.db(), await sha256Hex(password)) : null;
    if (!job?.user || job.user.state !== "active") return "denied";
    return { actor: { user: job.user, isAdmin: job.user.admin, scopes: ["api"], tokenId: 0, sudoFrom: null }, jobProjectId: job.projectId };
  }
  const deployToken = password ? await findDeployToken(c.var.db(), password) : null;
  if (deployToken && deployToken.username === login) return isActive(deployToken) ? { actor: null, jobProjectId: null, deployToken } : "denied";
  try {
    const actor = await actorFromBasic(c);
    return actor ? { actor, jobProjectId: null } : "denied";
  } catch (error) {
    if (error instanceof GitHttpError) return "denied";
    throw error;
  }
}

/** Gitlab::Auth#abilities_for_scopes, for the registry's three actions. */
function scopeAllows(actor: Actor, action: string): boolean {
  const scopes = actor.scopes;
  if (scopes.includes("api")) return true;
  if (action === "pull") return scopes.includes("read_api") || scopes.includes("read_registry");
  if (action === "push") return scopes.includes("write_registry");
  return false;
}

/** The project an image path belongs to (the longest project path that prefixes it) and the image's name in it. */
export async function imageProject(c: Ctx, path: string, userId: number | null): Promise<{ project: ProjectWithAccess; name: string } | null> {
  const parts = path.split("/");
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/")).filter((p) => p.includes("/"));
  if (!candidates.length) return null;
  const found = await q.projectIdForImage(c.var.db(), candidates);
  if (!found) return null;
  const project = await projectWithAccess(c.var.db(), userId, { id: found.id });
  if (!project) return null;
  return { project, name: path.slice(found.fullPath.length + 1) };
}

const ABILITY = { pull: "read_container_image", push: "create_container_image", delete: "destroy_container_image" } as const;

/**
 * The actions of `requested` the caller gets on `path`. A CI job pushes and deletes only in its own
 * project (build_can_push?), and pulls wherever its user may.
 */
export function grantedActions(who: RegistryActor | null, project: ProjectWithAccess, requested: string[]): string[] {
  if (who?.deployToken) return deployTokenActions(who.deployToken, project, requested);
  const actor = who?.actor ?? null;
  const out: string[] = [];
  for (const raw of requested) {
    const action = raw === "*" ? "delete" : raw;
    if (!(action in ABILITY) || out.includes(action)) continue;
    if (actor && !scopeAllows(actor, action)) continue;
    if (who?.jobProjectId != null && action !== "pull" && who.jobProjectId !== project.id) continue;
    if (allowed(actor, ABILITY[action as keyof typeof ABILITY], project)) out.push(action);
  }
  return out;
}

/**
 * deploy_token_can_pull? / deploy_token_can_push?: pull with `read_registry`, push with
 * `write_registry`, on the projects the token reaches with their registry enabled; never delete.
 */
function deployTokenActions(token: DeployToken, project: ProjectWithAccess, requested: string[]): string[] {
  if (!project.containerRegistryEnabled) return [];
  const target = { id: project.id, traversalIds: project.namespace.traversalIds };
  const out: string[] = [];
  if (requested.includes("pull") && deployTokenAllows(token, target, "read_registry")) out.push("pull");
  if (requested.includes("push") && deployTokenAllows(token, target, "write_registry")) out.push("push");
  return out;
}

/** `scope` values (`repository:<path>:<actions>`, several per parameter when space-separated) granted to the caller. */
export async function grantScopes(c: Ctx, who: RegistryActor | null, scopes: string[]): Promise<RegistryAccess[]> {
  const access: RegistryAccess[] = [];
  for (const scope of scopes.flatMap((s) => s.split(" ")).filter(Boolean)) {
    const match = /^([a-z0-9]+)(?:\([a-z0-9]+\))?:(.+):([^:]*)$/.exec(scope);
    if (match?.[1] === "registry") {
      const granted = registryAccess(who, match[2], match[3].split(","));
      if (granted) access.push(granted);
      continue;
    }
    if (!match || match[1] !== "repository" || !validImageName(match[2])) continue;
    const found = await imageProject(c, match[2], who?.actor?.user.id ?? null);
    if (!found) continue;
    const actions = grantedActions(who, found.project, match[3].split(","));
    if (actions.length) access.push({ type: "repository", name: match[2], actions });
  }
  return access;
}

/**
 * process_registry_access: `registry:catalog:*` (the `/v2/_catalog` listing) only for administrators,
 * and only with exactly the `*` action; anything else of type `registry` is dropped.
 */
function registryAccess(who: RegistryActor | null, name: string, actions: string[]): RegistryAccess | null {
  if (!who?.actor?.isAdmin || name !== "catalog" || actions.length !== 1 || actions[0] !== "*") return null;
  return { type: "registry", name: "catalog", actions: ["*"] };
}
