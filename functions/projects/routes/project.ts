import * as z from "zod";
import { authorize, canReadProject } from "../../kernel/abilities";
import { Access } from "../../kernel/access";
import { requireAdmin, requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { acceptedBody, notFound, validation } from "../../kernel/errors";
import { avatarErrors, storeAvatar } from "../../shared/uploads";
import { checkExpirationPolicy, writeExpirationPolicy } from "../../container_registry/public";
import { findProject, findUser, authorizedProject } from "../../kernel/lookup";
import { p, rawParams, readParams, readParamsWithPath, validateParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { project, projectBasic, projectWithAccess, type ProjectRow, ProjectWithAccess, BasicProjectDetails, Project } from "../../entities/projects";
import * as q from "../queries";
import * as s from "../services";
import { GetProject } from "../params";
import { withStatistics } from "../statistics";

export const projectRoutes = router();

/** `optional_project_params` that Edgeforge stores, in lib/api/helpers/projects_helpers.rb's order. */
const projectSettings = {
  description: p.string().nullable().optional().describe("The description of the project"),
  issues_enabled: p.bool().optional().describe("Flag indication if the issue tracker is enabled"),
  merge_requests_enabled: p.bool().optional().describe("Flag indication if merge requests are enabled"),
  wiki_enabled: p.bool().optional().describe("Flag indication if the wiki is enabled"),
  jobs_enabled: p.bool().optional().describe("Flag indication if jobs are enabled"),
  snippets_enabled: p.bool().optional().describe("Flag indication if snippets are enabled"),
  shared_runners_enabled: p.bool().optional().describe("Flag indication if shared runners are enabled for that project"),
  lfs_enabled: p.bool().optional().describe("Flag indication if Git LFS is enabled for that project"),
  container_registry_enabled: p.bool().optional().describe("Deprecated: Use :container_registry_access_level instead. Flag indication if the container registry is enabled for that project"),
  // 15.4's replacement of `container_registry_enabled`; `private` is read as enabled here (no
  // members-only registry on public projects yet).
  container_registry_access_level: p.oneOf("disabled", "private", "enabled").optional().describe("Controls visibility of the container registry. One of `disabled`, `private` or `enabled`."),
  visibility: p.oneOf("private", "internal", "public").optional().describe("The visibility of the project."),
  pages_access_level: p.oneOf("disabled", "private", "enabled", "public").optional().describe("Who may read the project's Pages site (docs/pages.md). One of `disabled`, `private`, `enabled` or `public`."),
  public_builds: p.bool().optional().describe("Deprecated: Use public_jobs instead."),
  public_jobs: p.bool().optional().describe("Perform public builds"),
  request_access_enabled: p.bool().optional().describe("Allow users to request member access"),
  tag_list: p.strings({ comma: true }).optional().describe("Deprecated: Use :topics instead"),
  topics: p.strings({ comma: true }).optional().describe("The list of topics for a project"),
  merge_method: p.oneOf("merge", "rebase_merge", "ff").optional().describe("The merge method used when merging merge requests"),
  squash_option: p.oneOf("never", "always", "default_on", "default_off").optional().describe("Squash default for project. One of `never`, `always`, `default_on`, or `default_off`."),
  avatar: p.file().optional().describe("Avatar image for project"),
};

/** Avatarable's validations of `avatar`, as the model's 400 (checked before anything is written). */
function checkAvatar(avatar: File | undefined): void {
  const errors = avatar ? avatarErrors(avatar) : [];
  if (errors.length) throw validation({ avatar: errors });
}

/** Stores the avatar sent with a create or update (shared/uploads.ts), into the row to present. */
async function saveAvatar<T extends { id: number; avatarUrl: string | null }>(c: Ctx, row: T, avatar: File | undefined): Promise<T> {
  if (!avatar) return row;
  return { ...row, avatarUrl: await storeAvatar(c.var.db(), c.env.BLOBS, "project", row.id, avatar) };
}

const CreateProject = z.object({
  name: p.string().optional().describe("The name of the project"),
  path: p.string().optional().describe("The path of the repository"),
  default_branch: p.string().optional().describe("The default branch of the project"),
  ...projectSettings,
  initialize_with_readme: p.bool().optional().describe("Initialize a project with a README.md"),
  namespace_id: p.int().optional().describe("Namespace ID for the new project. Default to the user namespace."),
});

const CreateProjectForUser = CreateProject.extend({ name: p.string(), user_id: p.int() });

type SettingsParams = { [K in keyof typeof projectSettings]?: z.output<(typeof projectSettings)[K]> } & {
  name?: string;
  path?: string;
  default_branch?: string;
};

/** `translate_params_for_compatibility`: jobs_enabled and public_jobs are the API names. */
function settingsInput(params: SettingsParams): s.UpdateInput {
  return {
    name: params.name,
    path: params.path,
    description: params.description,
    defaultBranch: params.default_branch,
    visibility: params.visibility,
    issuesEnabled: params.issues_enabled,
    mergeRequestsEnabled: params.merge_requests_enabled,
    wikiEnabled: params.wiki_enabled,
    jobsEnabled: params.jobs_enabled,
    snippetsEnabled: params.snippets_enabled,
    sharedRunnersEnabled: params.shared_runners_enabled,
    publicJobs: params.public_jobs ?? params.public_builds,
    requestAccessEnabled: params.request_access_enabled,
    lfsEnabled: params.lfs_enabled,
    containerRegistryEnabled: params.container_registry_access_level ? params.container_registry_access_level !== "disabled" : params.container_registry_enabled,
    // `build_topics`: topics wins over the deprecated tag_list.
    topics: params.topics ?? params.tag_list,
    mergeMethod: params.merge_method,
    squashOption: params.squash_option,
    pagesAccessLevel: params.pages_access_level,
  };
}

/** The caller's level on a project they just created in `namespace` (for the entity's conditions). */
const creatorLevel = (namespace: ProjectRow["namespace"], memberLevel: number) => (namespace.type === "User" ? Access.OWNER : memberLevel);

/** POST /projects (lib/api/projects.rb, app/services/projects/create_service.rb) */
projectRoutes.post("/projects", { params: CreateProject, response: Project }, async (c) => {
  const params = await readParams(c, CreateProject, [{ atLeastOneOf: ["name", "path"] }]);
  const actor = requireUser(c);
  checkAvatar(params.avatar);
  const row = await s.createProject(
    c.var.db(),
    actor.user,
    { ...settingsInput(params), namespaceId: params.namespace_id, initializeWithReadme: params.initialize_with_readme },
    { limitForbidden: true, accessLevelOf: creatorLevel, baseUrl: baseUrl(c) },
  );
  return present(c, await saveAvatar(c, row, params.avatar), project, {}, 201);
});

/** POST /projects/user/:user_id (lib/api/projects.rb): an admin creates a project for a user. */
projectRoutes.post("/projects/user/:user_id", { params: CreateProjectForUser, response: Project }, async (c) => {
  const params = await readParamsWithPath(c, CreateProjectForUser);
  requireAdmin(c);
  const user = await findUser(c, String(params.user_id));
  checkAvatar(params.avatar);
  const row = await s.createProject(
    c.var.db(),
    user,
    { ...settingsInput(params), namespaceId: params.namespace_id, initializeWithReadme: params.initialize_with_readme },
    { limitForbidden: false, accessLevelOf: () => Access.NO_ACCESS, baseUrl: baseUrl(c) },
  );
  return present(c, await saveAvatar(c, row, params.avatar), project, {}, 201);
});

/** GET /projects/:id (lib/api/projects.rb): ProjectWithAccess when signed in, BasicProjectDetails otherwise. */
projectRoutes.get("/projects/:id", { params: GetProject, response: z.union([ProjectWithAccess, BasicProjectDetails]) }, async (c) => {
  const params = await readParams(c, GetProject);
  // `find_project!` and the row in one read (the hottest endpoint: one statement where the lookup, the row and
  // its shared groups were three); `statistics=true` adds one.
  const actor = c.var.actor;
  const row = await q.findReadableProjectRow(c.var.db(), actor, c.req.param("id"), (found) => canReadProject(actor, found));
  if (!row) throw notFound("Project");
  if (!actor) return present(c, row, projectBasic);
  const [withStats] = await withStatistics(c, [row], params.statistics);
  return present(c, withStats!, projectWithAccess);
});

async function reload(c: Ctx, projectId: number) {
  const row = await q.loadProjectRow(c.var.db(), c.var.actor, projectId);
  if (!row) throw notFound("Project");
  return row;
}

/** Everything `PUT /projects/:id` declares (update_params_at_least_one_of, lib/api/helpers/projects_helpers.rb). */
const UPDATE_AT_LEAST_ONE_OF = [
  "allow_merge_on_skipped_pipeline", "autoclose_referenced_issues", "auto_devops_enabled", "auto_devops_deploy_strategy",
  "auto_cancel_pending_pipelines", "build_coverage_regex", "build_git_strategy", "build_timeout", "builds_access_level",
  "ci_config_path", "ci_default_git_depth", "ci_forward_deployment_enabled", "container_registry_access_level", "container_registry_enabled",
  "container_expiration_policy_attributes", "default_branch", "description", "emails_disabled", "forking_access_level",
  "issues_access_level", "lfs_enabled", "merge_pipelines_enabled", "merge_requests_access_level",
  "merge_requests_template", "merge_trains_enabled", "merge_method", "name", "only_allow_merge_if_all_discussions_are_resolved",
  "only_allow_merge_if_pipeline_succeeds", "pages_access_level", "path", "printing_merge_request_link_enabled",
  "public_builds", "remove_source_branch_after_merge", "repository_access_level", "request_access_enabled",
  "resolve_outdated_diff_discussions", "restrict_user_defined_variables", "squash_option", "shared_runners_enabled",
  "snippets_access_level", "tag_list", "topics", "visibility", "wiki_access_level", "avatar", "suggestion_commit_message",
  "repository_storage", "compliance_framework_setting", "packages_enabled", "service_desk_enabled", "keep_latest_artifact",
  "issues_enabled", "jobs_enabled", "merge_requests_enabled", "wiki_enabled", "snippets_enabled",
];

/** `optional_container_expiration_policy_params` (and `name_regex_delete`, name_regex's old name). */
const ExpirationPolicyAttributes = z.object({
  cadence: p.string().optional().describe("Container expiration policy cadence for recurring job"),
  keep_n: p.int().nullable().optional().describe("Container expiration policy number of images to keep"),
  older_than: p.string().nullable().optional().describe("Container expiration policy remove images older than value"),
  name_regex: p.string().nullable().optional().describe("Container expiration policy regex for image removal"),
  name_regex_delete: p.string().nullable().optional().describe("Alias of name_regex"),
  name_regex_keep: p.string().nullable().optional().describe("Container expiration policy regex for image retention"),
  enabled: p.bool().optional().describe("Flag indication if container expiration policy is enabled"),
});

const UpdateProject = z.object({
  name: p.string().optional().describe("The name of the project"),
  default_branch: p.string().optional().describe("The default branch of the project"),
  path: p.string().optional().describe("The path of the repository"),
  ...projectSettings,
  container_expiration_policy_attributes: ExpirationPolicyAttributes.optional().describe("The project's cleanup policy for its container images"),
});

/**
 * PUT /projects/:id (lib/api/projects.rb, app/services/projects/update_service.rb)
 * Differs from GitLab: settings Edgeforge does not store yet (build_timeout, …) are
 * ignored like unknown parameters, so sending only those answers the at-least-one 400.
 */
projectRoutes.put("/projects/:id", { params: UpdateProject, response: Project }, async (c) => {
  const raw = await rawParams(c);
  const declared = Object.fromEntries(Object.entries(raw).filter(([key]) => key in UpdateProject.shape));
  // Grape counts a key sent as null (`description: null` clears it), so presence is checked on keys.
  if (Object.keys(declared).length === 0) validateParams({}, z.object({}), [{ atLeastOneOf: UPDATE_AT_LEAST_ONE_OF }]);
  const params = validateParams(declared, UpdateProject);
  const found = await authorizedProject(c, "admin_project");
  if (params.name) authorize(c, "rename_project", found);
  if (params.visibility) authorize(c, "change_visibility_level", found);
  checkAvatar(params.avatar);
  // The policy is checked before anything is written, as the nested attributes' validation fails the save.
  const policy = params.container_expiration_policy_attributes ? await checkExpirationPolicy(c.var.db(), found.id, params.container_expiration_policy_attributes) : null;
  if (policy && "errors" in policy) throw validation(policy.errors);
  await s.updateProject(c.var.db(), found, settingsInput(params));
  if (policy) await writeExpirationPolicy(c.var.db(), found.id, policy.values);
  await saveAvatar(c, found, params.avatar);
  return present(c, await reload(c, found.id), project);
});

/** POST /projects/:id/archive (lib/api/projects.rb): 201 with the project, archived or not before. */
projectRoutes.post("/projects/:id/archive", { response: Project }, async (c) => {
  const found = await findProject(c, c.req.param("id"));
  authorize(c, "archive_project", found);
  await s.setArchived(c.var.db(), found.id, true);
  return present(c, await reload(c, found.id), project, {}, 201);
});

/** POST /projects/:id/unarchive (lib/api/projects.rb) */
projectRoutes.post("/projects/:id/unarchive", { response: Project }, async (c) => {
  const found = await findProject(c, c.req.param("id"));
  authorize(c, "archive_project", found);
  await s.setArchived(c.var.db(), found.id, false);
  return present(c, await reload(c, found.id), project, {}, 201);
});

/**
 * DELETE /projects/:id (lib/api/projects.rb): 202 Accepted. GitLab 15.4 deletes in a background job
 * (delayed deletion is off by default); Edgeforge deletes at once, so a GET afterwards is a 404.
 */
projectRoutes.delete("/projects/:id", async (c) => {
  const found = await findProject(c, c.req.param("id"));
  authorize(c, "remove_project", found);
  await s.destroyProject(c.var.db(), found.id, requireUser(c).user.id);
  return c.json(acceptedBody, 202);
});
