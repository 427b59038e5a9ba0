import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { unauthorized, notFound } from "../kernel/errors";
import type { Ctx } from "../kernel/env";
import { authorizedProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { GlobalLintResult, globalLintResult, LintResult, lintResult } from "../entities/lint";
import { loadSettings } from "../shared/settings/load";
import * as q from "./queries";
import { dryRunLint, readerAt, staticLint } from "./services";

/**
 * CI lint (lib/api/lint.rb, GitLab 15.4). `POST /ci/lint` checks text alone (no project, so
 * `include: local` cannot be read); the project routes read includes at the default branch's head
 * and can simulate the pipeline (`dry_run`).
 */
export const lintRoutes = router();
/** `POST /ci/lint` does not `authenticate_non_get!`: anonymous callers may lint when sign-up is open. */
const globalLint = router({ anonymousWrites: true });

const GlobalLint = z.object({ content: p.string(), include_merged_yaml: p.bool().optional(), include_jobs: p.bool().optional() });
const ProjectLintOptions = { dry_run: p.bool().default(false), include_jobs: p.bool().optional(), ref: p.string().optional() };
const ShowProjectLint = z.object(ProjectLintOptions);
const CreateProjectLint = z.object({ content: p.string(), ...ProjectLintOptions });

/**
 * `can_lint_ci?`: sign-up open and unrestricted, or a signed-in internal user, or a developer of some
 * project; otherwise 401.
 */
async function canLint(c: Ctx): Promise<boolean> {
  const actor = c.var.actor;
  if (actor && !actor.user.external) return true;
  const s = await loadSettings(c.var.db());
  const limited = (Array.isArray(s.domain_allowlist) && s.domain_allowlist.length > 0) || s.email_restrictions_enabled || s.require_admin_approval_after_user_signup || s.user_default_external;
  if (s.signup_enabled && !limited) return true;
  return !!actor && (await q.isDeveloperSomewhere(c.var.db(), actor.user.id));
}

/** POST /ci/lint (lib/api/lint.rb) */
globalLint.post("/ci/lint", { params: GlobalLint, response: GlobalLintResult, status: 200 }, async (c) => {
  const params = await readParams(c, GlobalLint);
  if (!(await canLint(c))) throw unauthorized();
  const result = await staticLint(params.content, null);
  return present(c, result, globalLintResult, { includeJobs: params.include_jobs, includeMergedYaml: params.include_merged_yaml });
});

const projectUrl = (c: Ctx, project: ProjectWithAccess) => ({ fullPath: project.fullPath, webUrl: `${baseUrl(c)}/${project.fullPath}` });

/** Static check, or the dry run of a `push` pipeline to `ref` (default: the default branch). */
async function lintIn(c: Ctx, project: ProjectWithAccess, content: string, opts: { dry_run: boolean; ref?: string }) {
  const db = c.var.db();
  if (opts.dry_run) {
    const actor = c.var.actor!;
    const input = {
      project: { id: project.id, name: project.name, path: project.path, fullPath: project.fullPath, namespaceFullPath: project.namespace.fullPath, visibilityLevel: project.visibilityLevel, defaultBranch: project.defaultBranch, poolId: project.poolId },
      ref: opts.ref ?? project.defaultBranch ?? "",
      source: "push" as const,
      user: { id: actor.user.id, username: actor.user.username, name: actor.user.name, email: actor.user.email },
      variables: [],
      baseUrl: baseUrl(c),
      content,
    };
    return dryRunLint(db, input, projectUrl(c, project));
  }
  const at = project.defaultBranch ? await readerAt(db, project, project.defaultBranch) : null;
  return staticLint(content, at ? { project: projectUrl(c, project), ...at } : null);
}

/** GET /projects/:id/ci/lint (lib/api/lint.rb): the `.gitlab-ci.yml` of the default branch's head. */
lintRoutes.get("/projects/:id/ci/lint", { params: ShowProjectLint, response: LintResult }, async (c) => {
  const params = await readParams(c, ShowProjectLint);
  const project = await authorizedProject(c, "download_code");
  const at = project.defaultBranch ? await readerAt(c.var.db(), project, project.defaultBranch) : null;
  // Deliberate difference: GitLab 15.4 fails with a 500 on an empty repository; later versions and we
  // answer `404 Repository Not Found`.
  if (!at) throw notFound("Repository");
  const content = (await at.readLocal(".gitlab-ci.yml")) ?? "";
  // Only a signed-in caller can dry-run: the simulated pipeline has a user.
  const result = await lintIn(c, project, content, { ...params, dry_run: params.dry_run && !!c.var.actor });
  return present(c, result, lintResult, { includeJobs: params.include_jobs });
});

/** POST /projects/:id/ci/lint (lib/api/lint.rb) */
lintRoutes.post("/projects/:id/ci/lint", { params: CreateProjectLint, response: LintResult, status: 200 }, async (c) => {
  const params = await readParams(c, CreateProjectLint);
  const project = await authorizedProject(c, "create_pipeline");
  const result = await lintIn(c, project, params.content, params);
  return present(c, result, lintResult, { includeJobs: params.include_jobs });
});

lintRoutes.route("/", globalLint);
