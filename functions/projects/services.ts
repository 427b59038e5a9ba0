import type { Namespace, Project, User } from "../../db/schema";
import { Access, visibilityLevel, visibilityName, type VisibilityName } from "../kernel/access";
import type { Database, Executor, Transaction } from "../kernel/db";
import { ApiError, apiError, conflict, notFound, validation } from "../kernel/errors";
import { toSentence } from "../kernel/present";
import type { ProjectRow } from "../entities/projects";
import { copyRefsForFork, createInitialCommit, initializeDefaultBranch, isValidBranchName, readRef, repoOf } from "../shared/git";
import * as q from "./queries";
import { defaultReadme } from "./readme";
import { canCreateIn } from "../shared/project_transfer";

/** Gitlab::Regex.project_name_regex (15.x) and its message. */
const NAME_FORMAT = /^[\p{L}\p{N}\u00A9-\u{1F9FF}_][\p{L}\p{N}\p{Pd}\u00A9-\u{1F9FF}_. ]*$/u;
const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
/** Gitlab::PathRegex.project_path_format_regex plus the project route's illegal words. */
const PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
const ILLEGAL_PATHS = new Set(
  ["-", "badges", "blame", "blob", "builds", "commits", "create", "create_dir", "edit", "files", "find_file", "new",
    "preview", "raw", "refs", "tree", "update", "wikis"],
);
const TAKEN = "has already been taken";

export function validPath(path: string): boolean {
  return PATH_FORMAT.test(path) && !/\.(git|atom)$/.test(path) && !ILLEGAL_PATHS.has(path.toLowerCase());
}

/** ActiveSupport's `parameterize`: ASCII, lower case, runs of other characters become one `-`. */
export function parameterize(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9\-_]+/gi, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

/** Projects::CreateService#set_project_name_from_path. */
export function nameAndPath(name: string | undefined, path: string | undefined): { name: string; path: string } {
  if (name && path) return { name, path };
  if (path) return { name: path, path };
  if (name) return { name, path: PATH_FORMAT.test(name) && !/\.(git|atom)$/.test(name) ? name : parameterize(name) };
  return { name: name ?? "", path: path ?? "" };
}

/** Project model validations on name, path and description, in GitLab's order. */
function attributeErrors(
  attrs: { name?: string; path?: string; description?: string | null },
  taken: { nameTaken: boolean; pathTaken: boolean },
  creating: boolean,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  // On create the project namespace is validated (and reported) before the project itself.
  if (creating && taken.nameTaken) add("project_namespace.name", TAKEN);
  if (attrs.name !== undefined) {
    if (attrs.name.trim() === "") add("name", "can't be blank");
    if (attrs.name.length > 255) add("name", "is too long (maximum is 255 characters)");
    if (!NAME_FORMAT.test(attrs.name)) add("name", NAME_MESSAGE);
    if (taken.nameTaken) add("name", TAKEN);
  }
  if (attrs.path !== undefined) {
    if (attrs.path.trim() === "") add("path", "can't be blank");
    if (!validPath(attrs.path)) add("path", PATH_MESSAGE);
    if (attrs.path.length > 255) add("path", "is too long (maximum is 255 characters)");
    if (taken.pathTaken) add("path", TAKEN);
  }
  if (attrs.description && attrs.description.length > 2000) add("description", "is too long (maximum is 2000 characters)");
  return errors;
}

export type CreateInput = {
  name?: string;
  path?: string;
  namespaceId?: number;
  description?: string | null;
  defaultBranch?: string;
  initializeWithReadme?: boolean;
  visibility?: VisibilityName;
  issuesEnabled?: boolean;
  mergeRequestsEnabled?: boolean;
  wikiEnabled?: boolean;
  jobsEnabled?: boolean;
  snippetsEnabled?: boolean;
  sharedRunnersEnabled?: boolean;
  publicJobs?: boolean;
  requestAccessEnabled?: boolean;
  /** Project#lfs_enabled (unset: the namespace's decides). */
  lfsEnabled?: boolean;
  /** Project#container_registry_enabled (functions/container_registry). */
  containerRegistryEnabled?: boolean;
  topics?: string[];
  /** A fork (Projects::ForkService): the source whose refs, object pool and counter it shares. */
  forkOf?: Project;
  /** The fork's own visibility level, already lowered to the source's and the namespace's. */
  visibilityLevel?: number;
  mrDefaultTargetSelf?: boolean;
  /** ProjectFeature#pages_access_level: disabled | private | enabled | public. */
  pagesAccessLevel?: string;
  /** Project#merge_method: merge | rebase_merge | ff. */
  mergeMethod?: string;
  /** ProjectSetting#squash_option: never | always | default_on | default_off. */
  squashOption?: string;
};

/** `topic_list=`: trimmed, blanks dropped, case-insensitive duplicates dropped. */
export function topicList(topics: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of topics) {
    const topic = raw.trim();
    if (!topic || seen.has(topic.toLowerCase())) continue;
    seen.add(topic.toLowerCase());
    out.push(topic);
  }
  return out;
}

/**
 * Projects::CreateService for `creator` (the caller, or the user an admin creates for). Creates the
 * project and, in a personal namespace, the namespace owner's Owner membership, in one transaction.
 * `limitForbidden`: `POST /projects` answers the personal project limit with 403 and the bare message
 * array; `POST /projects/user/:user_id` renders it as a validation error.
 */
export async function createProject(
  db: Database,
  creator: User,
  input: CreateInput,
  opts: {
    limitForbidden: boolean;
    accessLevelOf: (namespace: Namespace, memberLevel: number) => number;
    /** Where the project's URLs point (the README's clone commands); see kernel `baseUrl`. */
    baseUrl?: string;
  },
): Promise<ProjectRow> {
  const { name, path } = nameAndPath(input.name, input.path);
  let target: Awaited<ReturnType<typeof q.loadTargetNamespace>>;
  if (input.namespaceId !== undefined) {
    target = await q.loadTargetNamespace(db, { id: input.namespaceId }, creator.id);
    // `Namespace.find_by_id(id) || current_user.namespace`: an unknown id passes the permission check
    // with the caller's own namespace, then fails presence validation on save.
    if (!target) throw validation({ namespace: ["can't be blank"] });
    if (!canCreateIn(creator, target.namespace, target.memberLevel)) throw validation({ namespace: ["is not valid"] });
  } else {
    target = await q.loadTargetNamespace(db, { ownerId: creator.id }, creator.id);
    if (!target) throw validation({ namespace: ["can't be blank"] });
  }
  const namespace = target.namespace;

  // Project#check_personal_projects_limit.
  if (namespace.type === "User" && target.personalProjects >= creator.projectsLimit) {
    const limit = creator.projectsLimit;
    const message = limit === 0
      ? "Personal project creation is not allowed. Please contact your administrator with questions"
      : `Your project limit is ${limit} projects! Please contact your administrator to increase it`;
    if (opts.limitForbidden) throw new ApiError(403, [message]);
    throw validation({ limit_reached: [message] });
  }

  const fullPath = `${namespace.fullPath}/${path}`;
  // A fork copies refs in a transaction; any other project is written in one statement with its id.
  const taken = await q.nameAndPathTaken(db, namespace.id, name, path ? fullPath : null, null, !input.forkOf);
  const errors = attributeErrors({ name, path, description: input.description }, taken, true);
  if (Object.keys(errors).length > 0) throw validation(errors);

  // The instance default applies when no visibility is given; a group caps it (GitLab lowers it to
  // the group's level instead of refusing).
  let level = input.visibilityLevel ?? visibilityLevel(input.visibility ?? ((target.defaultVisibility ?? "private") as VisibilityName));
  if (namespace.type === "Group" && level > namespace.visibilityLevel) level = namespace.visibilityLevel;

  const ownerId = namespace.type === "User" ? namespace.ownerId : null;
  const values: q.NewProject = {
    name,
    path,
    namespaceId: namespace.id,
    fullPath,
    nameWithNamespace: `${namespace.fullName} / ${name}`,
    creatorId: creator.id,
    description: input.description ?? null,
    visibilityLevel: level,
    initializeWithReadme: !!input.initializeWithReadme,
    // The repository is empty until the README commit below names its first branch (HEAD).
    defaultBranch: null,
    issuesEnabled: input.issuesEnabled ?? true,
    mergeRequestsEnabled: input.mergeRequestsEnabled ?? true,
    wikiEnabled: input.wikiEnabled ?? true,
    jobsEnabled: input.jobsEnabled ?? true,
    snippetsEnabled: input.snippetsEnabled ?? true,
    sharedRunnersEnabled: input.sharedRunnersEnabled ?? true,
    publicJobs: input.publicJobs ?? true,
    requestAccessEnabled: input.requestAccessEnabled ?? true,
    lfsEnabled: input.lfsEnabled ?? null,
    containerRegistryEnabled: input.containerRegistryEnabled ?? true,
    ...(input.pagesAccessLevel !== undefined ? { pagesAccessLevel: input.pagesAccessLevel } : {}),
    forkedFromProjectId: input.forkOf?.id ?? null,
    poolId: input.forkOf ? (input.forkOf.poolId ?? input.forkOf.id) : null,
    mrDefaultTargetSelf: input.mrDefaultTargetSelf ?? false,
    mergeMethod: input.mergeMethod ?? "merge",
    squashOption: input.squashOption ?? "default_off",
  };
  const forkOf = input.forkOf;
  const topics = topicList(input.topics ?? []);
  const created = forkOf
    ? await inTransaction(db, async (tx) => {
        const row = await q.insertProject(tx, values);
        if (ownerId !== null) await q.insertOwnerMember(tx, row.id, ownerId, creator.id);
        await copyFork(tx, forkOf, row);
        if (topics.length) row.tagList = await q.assignTopics(tx, row.id, topics);
        return row;
      })
    : topics.length
      ? await inTransaction(db, async (tx) => {
          const row = await q.insertProjectWithOwner(tx, taken.nextId!, values, ownerId, creator.id);
          row.tagList = await q.assignTopics(tx, row.id, topics);
          return row;
        })
      : await uniquePath(() => q.insertProjectWithOwner(db, taken.nextId!, values, ownerId, creator.id));
  if (input.initializeWithReadme) await createReadme(db, created, creator, input, opts.baseUrl ?? "");
  return {
    ...created,
    namespace,
    owner: target.owner,
    accessLevel: opts.accessLevelOf(namespace, target.memberLevel),
    sharedWithGroups: [],
  };
}

/**
 * What a fork takes from its source, in the creating transaction: every branch and tag (the objects
 * are the shared pool's), HEAD and its default-branch protection, and one more in `forks_count`.
 * Differs from GitLab: GitLab copies the repository in a background import (`import_status`
 * "scheduled" at first); here the fork is complete when the request answers.
 */
async function copyFork(tx: Transaction, source: Project, fork: Project): Promise<void> {
  await copyRefsForFork(tx, source.id, fork.id);
  if (source.defaultBranch && !source.emptyRepo && (await readRef(tx, fork.id, `refs/heads/${source.defaultBranch}`))) {
    await initializeDefaultBranch(tx, fork.id, source.defaultBranch);
    fork.emptyRepo = false;
    fork.defaultBranch = source.defaultBranch;
  }
  await q.countFork(tx, source.id);
}

/**
 * Projects::CreateService#create_readme: `README.md` from the default template on `default_branch`
 * (else `main`), message "Initial commit", by the creator, after the project exists (GitLab commits
 * in `after_create_actions`, outside the project's transaction). GitLab ignores a failed README
 * commit, which is what a branch name git refuses gives: the project stays, empty. Any other failure
 * (the database) removes the half-made project and answers 500 rather than leave it without its README.
 */
async function createReadme(db: Database, created: Project, creator: User, input: CreateInput, baseUrl: string): Promise<void> {
  const branch = input.defaultBranch || "main";
  if (!isValidBranchName(branch)) return;
  const content = defaultReadme({ name: created.name, description: created.description, webUrl: `${baseUrl}/${created.fullPath}`, defaultBranch: branch });
  let result;
  try {
    result = await createInitialCommit(db, repoOf(created), {
      branch,
      path: "README.md",
      content,
      message: "Initial commit",
      user: { name: creator.name, email: creator.email },
      userId: creator.id,
    });
  } catch (err) {
    await destroyProject(db, created.id).catch(() => undefined);
    throw err;
  }
  if (!result.ok) return;
  // What the commit wrote (projects.empty_repo, default_branch), without reading the row again.
  created.emptyRepo = false;
  created.defaultBranch = branch;
}

export type UpdateInput = Omit<CreateInput, "namespaceId" | "initializeWithReadme">;

/**
 * Projects::UpdateService: only the keys that were sent change. A default branch can only be set
 * to a branch that exists (`change_head`), else GitLab's "Could not change HEAD" error.
 */
export async function updateProject(db: Database, current: Project & { namespace: Namespace }, input: UpdateInput): Promise<void> {
  const changes: q.ProjectChanges = {};
  if (input.defaultBranch !== undefined && input.defaultBranch !== "" && input.defaultBranch !== current.defaultBranch) {
    if (!(await readRef(db, current.id, `refs/heads/${input.defaultBranch}`)))
      throw validation({ base: [`Could not change HEAD: branch '${input.defaultBranch}' does not exist`] });
    changes.defaultBranch = input.defaultBranch;
  }
  const namespace = current.namespace;
  const renaming = input.name !== undefined && input.name !== current.name;
  const moving = input.path !== undefined && input.path !== current.path;
  const fullPath = moving ? `${namespace.fullPath}/${input.path}` : current.fullPath;
  const taken = renaming || moving
    ? await q.nameAndPathTaken(db, namespace.id, renaming ? input.name! : null, moving ? fullPath : null, current.id)
    : { nameTaken: false, pathTaken: false };
  const errors = attributeErrors(
    { name: renaming ? input.name : undefined, path: moving ? input.path : undefined, description: input.description },
    taken,
    false,
  );
  if (input.visibility !== undefined && namespace.type === "Group") {
    const level = visibilityLevel(input.visibility);
    if (level > namespace.visibilityLevel)
      errors.visibility_level = [`${input.visibility} is not allowed in a ${visibilityName(namespace.visibilityLevel)} group.`];
  }
  if (Object.keys(errors).length > 0) throw validation(errors);

  if (renaming) {
    changes.name = input.name;
    changes.nameWithNamespace = `${namespace.fullName} / ${input.name}`;
  }
  if (moving) {
    changes.path = input.path;
    changes.fullPath = fullPath;
  }
  if (input.description !== undefined) changes.description = input.description;
  if (input.visibility !== undefined) changes.visibilityLevel = visibilityLevel(input.visibility);
  if (input.issuesEnabled !== undefined) changes.issuesEnabled = input.issuesEnabled;
  if (input.mergeRequestsEnabled !== undefined) changes.mergeRequestsEnabled = input.mergeRequestsEnabled;
  if (input.wikiEnabled !== undefined) changes.wikiEnabled = input.wikiEnabled;
  if (input.jobsEnabled !== undefined) changes.jobsEnabled = input.jobsEnabled;
  if (input.snippetsEnabled !== undefined) changes.snippetsEnabled = input.snippetsEnabled;
  if (input.sharedRunnersEnabled !== undefined) changes.sharedRunnersEnabled = input.sharedRunnersEnabled;
  if (input.publicJobs !== undefined) changes.publicJobs = input.publicJobs;
  if (input.requestAccessEnabled !== undefined) changes.requestAccessEnabled = input.requestAccessEnabled;
  if (input.lfsEnabled !== undefined) changes.lfsEnabled = input.lfsEnabled;
  if (input.containerRegistryEnabled !== undefined) changes.containerRegistryEnabled = input.containerRegistryEnabled;
  if (input.pagesAccessLevel !== undefined) changes.pagesAccessLevel = input.pagesAccessLevel;

  if (input.mergeMethod !== undefined) changes.mergeMethod = input.mergeMethod;
  if (input.squashOption !== undefined) changes.squashOption = input.squashOption;
  try {
    // The topics (Project#topic_list=, `save_topics`) are written with the columns, in one transaction.
    if (input.topics !== undefined) {
      const topics = topicList(input.topics);
      await db.transaction(async (tx) => {
        await q.updateProject(tx, current.id, changes);
        await q.assignTopics(tx, current.id, topics);
      });
    } else await q.updateProject(db, current.id, changes);
  } catch (err) {
    if (isUniqueViolation(err)) throw validation({ path: [TAKEN] });
    throw err;
  }
}

export async function setArchived(db: Database, projectId: number, archived: boolean): Promise<void> {
  await q.updateProject(db, projectId, { archived });
}

/**
 * Projects::DestroyService: the project, its memberships and its group links, in one transaction. With
 * `userId` (the user deleting it), a fork is first unlinked as UnlinkForkService does, which closes the
 * open merge requests between it and its network (merge requests into the fork go with it).
 */
export async function destroyProject(db: Database, projectId: number, userId?: number): Promise<void> {
  await db.transaction(async (tx) => {
    if (userId !== undefined) await q.unlinkFork(tx, projectId, userId);
    await q.deleteProject(tx, projectId);
  });
}

/**
 * The last step of Projects::OverwriteProjectService, for an import with `overwrite`: `source` is
 * destroyed (as destroyProject does) and `project` takes its name and path. Runs in the caller's
 * transaction, which also moved what the overwrite keeps.
 */
export async function replaceProject(tx: Executor, projectId: number, source: { id: number; name: string; path: string; fullPath: string }): Promise<void> {
  await q.deleteProject(tx, source.id);
  await q.updateProject(tx, projectId, { name: source.name, path: source.path, fullPath: source.fullPath });
}

/**
 * Projects::GroupLinks::CreateService: the caller must be a member of the group or an ancestor
 * (`read_namespace`), else `{"message":"Not Found"}`; failed validations answer 409 with the full
 * messages joined as a sentence.
 */
export async function shareProject(
  db: Database,
  user: User,
  project: { id: number; namespace: Namespace },
  params: { groupId: number; groupAccess: number; expiresAt: string | null },
) {
  const target = await q.loadShareGroup(db, params.groupId, user.id, project.id);
  if (!target || (!user.admin && target.memberLevel === 0)) throw apiError("Not Found", 404);
  const problems: string[] = [];
  if (target.alreadyShared) problems.push("Group already shared with this group");
  if (project.namespace.type === "Group" && project.namespace.traversalIds.includes(target.group.id))
    problems.push("Project cannot be shared with the group it is in or one of its ancestors.");
  if (problems.length > 0) throw conflict(toSentence(problems));
  try {
    return await q.insertGroupLink(db, { projectId: project.id, ...params });
  } catch (err) {
    // A concurrent share of the same pair trips the unique index.
    if (isUniqueViolation(err)) throw conflict("Group already shared with this group");
    throw err;
  }
}

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === "23505") return true;
  }
  return false;
}

/** A concurrent create or rename onto the same path trips the unique index on lower(full_path). */
async function uniquePath<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw validation({ path: [TAKEN] });
    throw err;
  }
}

async function inTransaction<T>(db: Database, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return uniquePath(() => db.transaction(fn));
}

/** `DELETE /projects/:id/share/:group_id`: `404 Group Link Not Found` when there is no link. */
export async function unshareProject(db: Database, projectId: number, groupId: number): Promise<void> {
  const link = await q.findGroupLink(db, projectId, groupId);
  if (!link) throw notFound("Group Link");
  await q.deleteGroupLink(db, link.id);
}

/** ForkTargetsFinder: the caller's own namespace and the groups where they may create projects; admins anywhere. */
export function isForkTarget(user: User, namespace: Namespace, memberLevel: number): boolean {
  return canCreateIn(user, namespace, memberLevel);
}

/**
 * Projects::ForkService#target_visibility_level: the lowest of the source's, the target namespace's
 * and the requested level.
 */
export function forkVisibility(source: Project, namespace: Namespace, requested: VisibilityName | undefined): number {
  let level = Math.min(source.visibilityLevel, namespace.visibilityLevel);
  if (requested !== undefined) level = Math.min(level, visibilityLevel(requested));
  return level;
}

export type ForkInput = {
  namespace: (Namespace & { accessLevel: number }) | null;
  name?: string;
  path?: string;
  description?: string;
  visibility?: VisibilityName;
  mrDefaultTargetSelf?: boolean;
};

/**
 * Projects::ForkService#fork_new_project: a project created (CreateService) with the source's name,
 * path, description, shared runners and CI setting unless given, at the lowest visibility, sharing its
 * objects and refs. `404 Target Namespace Not Found` for a namespace the caller may not fork into;
 * the model's refusals answer 409 with the errors hash (`conflict!(errors.messages)`).
 */
export async function forkProject(db: Database, user: User, source: Project, input: ForkInput, baseUrl: string): Promise<Project> {
  const target = input.namespace
    ? { namespace: input.namespace as Namespace, memberLevel: input.namespace.accessLevel }
    : await q.loadTargetNamespace(db, { ownerId: user.id }, user.id);
  if (!target || !isForkTarget(user, target.namespace, target.memberLevel)) throw notFound("Target Namespace");
  try {
    return await createProject(
      db,
      user,
      {
        name: input.name ?? source.name,
        path: input.path ?? source.path,
        namespaceId: target.namespace.id,
        description: input.description ?? source.description,
        visibilityLevel: forkVisibility(source, target.namespace, input.visibility),
        sharedRunnersEnabled: source.sharedRunnersEnabled,
        jobsEnabled: source.jobsEnabled,
        forkOf: source,
        mrDefaultTargetSelf: input.mrDefaultTargetSelf,
      },
      { limitForbidden: false, accessLevelOf: () => Access.NO_ACCESS, baseUrl },
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw new ApiError(409, err.body);
    throw err;
  }
}
