import type { Executor } from "../kernel/db";
import type { FileTemplate } from "../entities/templates";
import { branchRef, commitTree, decodeUtf8, listTree, readFileAt, readRef, refCommit, repoOf } from "../shared/git";

/** Issue and merge request templates: markdown files of one folder of the default branch. */
export const REPOSITORY_TEMPLATE_DIRS = {
  issues: ".gitlab/issue_templates",
  merge_requests: ".gitlab/merge_request_templates",
} as const;
export type RepositoryTemplateType = keyof typeof REPOSITORY_TEMPLATE_DIRS;

const EXTENSION = ".md";
// Gitlab::Template::IssueTemplate / MergeRequestTemplate `by_category`: the project's own.
const CATEGORY = "Project Templates";

type TemplateProject = { id: number; defaultBranch: string | null; poolId?: number | null };

/** The root tree of the default branch's head (RepoTemplateFinder's `@commit`), or null for an empty repository. */
async function headTree(db: Executor, project: TemplateProject): Promise<{ repo: ReturnType<typeof repoOf>; tree: string } | null> {
  const repo = repoOf(project);
  if (!repo.defaultBranch) return null;
  const ref = await readRef(db, repo.projectId, branchRef(repo.defaultBranch));
  if (!ref) return null;
  const tree = await commitTree(db, repo, refCommit(ref));
  return tree ? { repo, tree } : null;
}

/**
 * The templates of the folder, by name (RepoTemplateFinder#list_files_for: the folder's own `*.md`
 * files, not its subfolders', sorted as BaseTemplate sorts names); contents are not read.
 */
export async function listRepositoryTemplates(db: Executor, project: TemplateProject, type: RepositoryTemplateType): Promise<FileTemplate[]> {
  const head = await headTree(db, project);
  if (!head) return [];
  const entries = (await listTree(db, head.repo, head.tree, REPOSITORY_TEMPLATE_DIRS[type], false)) ?? [];
  return entries
    .filter((entry) => entry.type === "blob" && entry.name.endsWith(EXTENSION) && entry.name.length > EXTENSION.length)
    .map((entry) => entry.name.slice(0, -EXTENSION.length))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => ({ key: name, name, category: CATEGORY, content: "" }));
}

/**
 * One template by key (RepoTemplateFinder#find: `<folder>/<key>.md` at the head of the default branch);
 * null when absent, and for a key that would leave the folder (GitLab's path traversal check).
 */
export async function findRepositoryTemplate(db: Executor, project: TemplateProject, type: RepositoryTemplateType, key: string): Promise<FileTemplate | null> {
  if (key.split("/").some((segment) => segment === ".." || segment === ".")) return null;
  const head = await headTree(db, project);
  if (!head) return null;
  const file = await readFileAt(db, head.repo, head.tree, `${REPOSITORY_TEMPLATE_DIRS[type]}/${key}${EXTENSION}`);
  if (!file) return null;
  const name = key.slice(key.lastIndexOf("/") + 1);
  return { key, name, category: CATEGORY, content: decodeUtf8(file.content) };
}
