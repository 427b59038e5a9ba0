// Who may clone and push (app/controllers/repositories/git_http_client_controller.rb and
// lib/gitlab/git_access.rb): HTTP Basic with a personal access token as the password (any user name),
// or user `gitlab-ci-token` with a running job's CI job token (clone and fetch only); anonymous reads
// of public projects; everyone else learns nothing about a project they cannot read.
import { allowed, allowedOnGroup, canReadGroup, canReadProject, type GroupWithAccess, type ProjectWithAccess } from "../../kernel/abilities";
import { sha256Hex } from "../../kernel/auth";
import { Access, Visibility } from "../../kernel/access";
import type { Actor, Ctx } from "../../kernel/env";
import { loadGroup, loadProject } from "../../kernel/lookup";
import { branchAllowsCollaboration } from "../protected_branches/collaboration";
import { findDeployToken, isActive } from "../deploy_tokens";
import * as q from "./queries";

export type GitService = "git-upload-pack" | "git-receive-pack";

/** A refusal rendered as GitLab renders it: plain text, with the Basic challenge on 401. */
export class GitHttpError extends Error {
  constructor(
    readonly status: 401 | 403 | 404,
    readonly text: string,
  ) {
    super(text);
  }

  response(): Response {
    const headers: Record<string, string> = { "Content-Type": "text/plain; charset=utf-8" };
    if (this.status === 401) headers["WWW-Authenticate"] = 'Basic realm="GitLab"';
    return new Response(this.text, { status: this.status, headers });
  }
}

const ACCESS_DENIED =
  "HTTP Basic: Access denied. The provided password or token is incorrect or your account has 2FA enabled and you must use a personal access token instead of a password.";
const PROJECT_NOT_FOUND = "The project you were looking for could not be found or you don't have permission to view it.";
const DOWNLOAD_FORBIDDEN = "You are not allowed to download code from this project.";
export const PUSH_FORBIDDEN = "You are not allowed to push code to this project.";
/** GitLab's `auth_upload`: the credential itself cannot push (a read-only token scope, a CI job token). */
const AUTH_UPLOAD = "You are not allowed to upload code.";
const ARCHIVED = "You are not allowed to push code to an archived project.";

/** 401 with the Basic challenge (also for LFS requests, which authenticate as git does). */
export const denied = () => new GitHttpError(401, ACCESS_DENIED);

/** `user:password` of a Basic header; null without one. */
function basicCredentials(header: string | undefined): { login: string; password: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Scopes standing for a job token's abilities (Gitlab::Auth#build_authentication_abilities): read only. */
const JOB_TOKEN_SCOPES = ["read_repository"] as const;

/**
 * Gitlab::Auth.find_for_git_client: user `gitlab-ci-token` with a CI job token
 * (build_access_token_check), else a personal access token with any login. An unknown, expired or
 * revoked token, a job that no longer runs, or a blocked user, is a 401.
 */
export async function actorFromBasic(c: Ctx): Promise<Actor | null> {
  const credentials = basicCredentials(c.req.header("authorization"));
  if (!credentials) return null;
  if (credentials.login === "gitlab-ci-token") return actorFromJobToken(c, credentials.password);
  const found = credentials.password ? await q.findTokenWithUser(c.var.db(), await sha256Hex(credentials.password)) : null;
  if (!found) throw denied();
  if (found.token.expiresAt && found.token.expiresAt <= new Date().toISOString().slice(0, 10)) throw denied();
  // Blocked, banned and deactivated users may not use git (GitLab: `can?(:access_git)`).
  if (found.token.revoked || found.user.state !== "active") throw denied();
  return { user: found.user, isAdmin: found.user.admin, scopes: found.token.scopes, tokenId: found.token.id, sudoFrom: null };
}

/**
 * A job token acts as the job's user, restricted to reading code (build_download_code): the job's
 * own project and any other project that user may download from. GitLab 15.4's job token scope
 * (`ci_job_token_scope_enabled`, off by default) is not built: every readable project is allowed.
 * Deliberate difference from GitLab: a job without a user (GitLab's `:ci` credentials) is refused;
 * every Edgeforge pipeline has one.
 */
async function actorFromJobToken(c: Ctx, token: string): Promise<Actor> {
  const found = token ? await q.findRunningJobWithUser(c.var.db(), await sha256Hex(token)) : null;
  if (!found?.user || found.user.state !== "active") throw denied();
  // tokenId 0: no personal access token stands behind this actor.
  return { user: found.user, isAdmin: found.user.admin, scopes: JOB_TOKEN_SCOPES, tokenId: 0, sudoFrom: null };
}

/** Token scopes that carry git abilities (Gitlab::Auth#abilities_for_scopes). */
export function scopeAllows(actor: Actor, service: GitService): boolean {
  const scopes: readonly string[] = actor.scopes;
  if (scopes.includes("api") || scopes.includes("write_repository")) return true;
  return service === "git-upload-pack" && scopes.includes("read_repository");
}

/**
 * The project behind `/<full_path>.git` if the caller may run `service` on it, else a GitHttpError:
 * anonymous callers get 401 unless the project is public and they only read; signed-in callers get 404
 * for what they cannot read (as for what does not exist), 403 for an action their role lacks.
 */
export async function gitAccess(
  c: Ctx,
  fullPath: string,
  service: GitService,
): Promise<{ project: ProjectWithAccess; actor: Actor | null; collaborator?: boolean }> {
  const viaDeployToken = await deployTokenAccess(c, fullPath, service);
  if (viaDeployToken) return viaDeployToken;
  const actor = await actorFromBasic(c);
  c.set("actor", actor);
  const project = fullPath.includes("/") ? await loadProject(c, fullPath) : null;
  if (!actor) {
    // http_download_allowed?: anonymous reads of public projects only; anything else asks for credentials.
    if (service === "git-upload-pack" && project && project.visibilityLevel >= Visibility.PUBLIC) return { project, actor };
    throw denied();
  }
  if (!project || !canReadProject(actor, project)) throw new GitHttpError(404, PROJECT_NOT_FOUND);
  if (service === "git-upload-pack") {
    if (!scopeAllows(actor, service) || !allowed(actor, "download_code", project)) throw new GitHttpError(403, DOWNLOAD_FORBIDDEN);
  } else {
    if (!scopeAllows(actor, service)) throw new GitHttpError(403, AUTH_UPLOAD);
    if (project.archived && (actor.isAdmin || project.accessLevel >= Access.DEVELOPER)) throw new GitHttpError(403, ARCHIVED);
    if (!allowed(actor, "push_code", project)) {
      // GitAccess#check_change_access! with `changes == ANY`: `any_branch_allows_collaboration?`. Which
      // branches such a collaborator may push is decided per ref by receive-pack (PushCheck).
      if (!(await branchAllowsCollaboration(c.var.db(), actor, project, null))) throw new GitHttpError(403, PUSH_FORBIDDEN);
      return { project, actor, collaborator: true };
    }
  }
  return { project, actor };
}

/**
 * A deploy token as the Basic password with its username as the login (Gitlab::Auth#deploy_token_check):
 * clones and fetches of the projects it reaches with `read_repository`; never a push (15.4's deploy
 * tokens have no write_repository scope). Null when the credentials are no deploy token, so that
 * personal access tokens are tried next.
 */
async function deployTokenAccess(c: Ctx, fullPath: string, service: GitService): Promise<{ project: ProjectWithAccess; actor: null } | null> {
  const credentials = basicCredentials(c.req.header("authorization"));
  if (!credentials || credentials.login === "gitlab-ci-token" || !credentials.password) return null;
  const token = await findDeployToken(c.var.db(), credentials.password);
  if (!token || token.username !== credentials.login) return null;
  if (!isActive(token)) throw denied();
  const project = fullPath.includes("/") ? await loadProject(c, fullPath) : null;
  if (!project) throw new GitHttpError(404, PROJECT_NOT_FOUND);
  // A token for another project learns nothing about this one.
  const reaches = token.projectId === project.id || (token.groupId !== null && project.namespace.traversalIds.includes(token.groupId));
  if (!reaches) throw new GitHttpError(404, PROJECT_NOT_FOUND);
  if (service === "git-receive-pack") throw new GitHttpError(403, AUTH_UPLOAD);
  if (!token.scopes.includes("read_repository")) throw new GitHttpError(403, DOWNLOAD_FORBIDDEN);
  return { project, actor: null };
}

/** Gitlab::GitAccessWiki's refusals. */
const WIKI_DOWNLOAD_FORBIDDEN = "You are not allowed to download files from this wiki.";
const WIKI_WRITE_FORBIDDEN = "You are not allowed to write to this project's wiki.";

export type WikiOwner = { kind: "project"; project: ProjectWithAccess } | { kind: "group"; group: GroupWithAccess };

/**
 * The container behind `/<full_path>.wiki.git` (a project's wiki, else a top-level or nested group's)
 * if the caller may run `service` on its wiki (Gitlab::GitAccessWiki: `read_wiki` to fetch,
 * `create_wiki` to push), else a GitHttpError with the same rules as a project's repository: 401 for
 * anonymous callers unless they fetch a wiki anyone may read, 404 for what they cannot see, 403 for
 * what their role lacks.
 */
export async function wikiGitAccess(c: Ctx, fullPath: string, service: GitService): Promise<{ owner: WikiOwner; actor: Actor | null }> {
  const actor = await actorFromBasic(c);
  c.set("actor", actor);
  const project = fullPath.includes("/") ? await loadProject(c, fullPath) : null;
  const group = project ? null : await loadGroup(c, fullPath);
  const owner: WikiOwner | null = project ? { kind: "project", project } : group ? { kind: "group", group } : null;
  const readable = owner ? (owner.kind === "project" ? canReadProject(actor, owner.project) : canReadGroup(actor, owner.group)) : false;
  const may = (ability: "read_wiki" | "create_wiki") =>
    owner ? (owner.kind === "project" ? allowed(actor, ability, owner.project) : allowedOnGroup(actor, ability, owner.group)) : false;
  if (!actor) {
    if (service === "git-upload-pack" && owner && readable && may("read_wiki")) return { owner, actor };
    throw denied();
  }
  if (!owner || !readable) throw new GitHttpError(404, PROJECT_NOT_FOUND);
  if (service === "git-upload-pack") {
    if (!scopeAllows(actor, service) || !may("read_wiki")) throw new GitHttpError(403, WIKI_DOWNLOAD_FORBIDDEN);
  } else {
    if (!scopeAllows(actor, service)) throw new GitHttpError(403, AUTH_UPLOAD);
    if (!may("create_wiki")) throw new GitHttpError(403, WIKI_WRITE_FORBIDDEN);
  }
  return { owner, actor };
}
