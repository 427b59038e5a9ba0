import { apiError } from "../kernel/errors";
import type { SnippetFileMap } from "./queries";

/**
 * Snippet files as GitLab's snippet services change them (app/services/snippets/*, SnippetInputAction,
 * SnippetRepository#multi_files_action), over rows instead of a git repository: pure functions from the
 * current files and the request to the new files, or the error GitLab answers.
 */

export type FileAction = { action: "create" | "update" | "delete" | "move"; file_path?: string; previous_path?: string; content?: string };

/** `{"message":{"error":"…"}}` with the service's status (`render_api_error!({ error: message }, status)`). */
const serviceError = (message: string, status: number) => apiError({ error: message }, status);

/** Snippets::BaseService#invalid_params_error: actions that SnippetInputAction does not accept. */
const invalidFiles = () => serviceError("Snippet files have invalid data", 403);

/**
 * SnippetRepository::CommitError, which the services report without its detail.
 * Differs from GitLab: GitLab answers these after trying a git commit; here the same cases are found
 * before writing (a file that already exists, a file that does not, a snippet left without files).
 */
const commitError = (creating: boolean) => serviceError(`Repository Error ${creating ? "creating" : "updating"} the snippet`, 400);

const blank = (s: string | undefined) => s === undefined || s.trim() === "";

/** SnippetInputAction's validations: every action valid, or none is applied. */
function validAction(a: FileAction): boolean {
  if (a.action === "move" && blank(a.previous_path)) return false;
  if (a.action !== "create" && blank(a.file_path)) return false;
  if ((a.action === "create" || a.action === "update") && blank(a.content)) return false;
  // ensure_same_file_path_and_previous_path / ensure_different_file_path_and_previous_path
  if (a.action === "update" && !blank(a.previous_path) && !blank(a.file_path) && a.previous_path !== a.file_path) return false;
  if (a.action === "move" && a.previous_path === a.file_path) return false;
  return true;
}

/** Gitlab::Git's generated name for a file created without a path: `snippetfile<n>.txt`, the first free n. */
function generatedPath(files: SnippetFileMap): string {
  for (let n = 1; ; n++) if (!files.has(`snippetfile${n}.txt`)) return `snippetfile${n}.txt`;
}

/**
 * The files after `actions` (Snippets::UpdateService with `files`), or GitLab's error. `move` without
 * `content` keeps the file's content, as a git move does.
 */
export function applyFileActions(current: SnippetFileMap, actions: FileAction[], opts: { creating?: boolean } = {}): SnippetFileMap {
  if (!actions.every(validAction)) throw invalidFiles();
  const files = new Map(current);
  const fail = () => commitError(!!opts.creating);
  for (const a of actions) {
    const path = a.file_path ?? "";
    if (a.action === "create") {
      const target = blank(a.file_path) ? generatedPath(files) : path;
      if (files.has(target)) throw fail();
      files.set(target, a.content!);
    } else if (a.action === "update") {
      if (!files.has(path)) throw fail();
      files.set(path, a.content!);
    } else if (a.action === "delete") {
      if (!files.delete(path)) throw fail();
    } else {
      const previous = a.previous_path!;
      if (!files.has(previous) || files.has(path)) throw fail();
      const content = a.content ?? files.get(previous)!;
      files.delete(previous);
      files.set(path, content);
    }
  }
  // A snippet keeps at least one file (a commit that removes every file fails).
  if (files.size === 0) throw fail();
  return files;
}

/**
 * Snippets::UpdateService#build_actions_from_params: `content` and/or `file_name` on a snippet of one
 * file update (or rename) that file. A snippet without files gets its first one.
 */
export function applyContentParams(current: SnippetFileMap, fallback: { fileName: string | null; content: string }, params: { file_name?: string; content?: string }): SnippetFileMap {
  const [previousPath, previousContent] = current.size ? [...current][0] : [fallback.fileName ?? "", fallback.content];
  const path = params.file_name ?? previousPath;
  if (path === "") throw commitError(false);
  return new Map([[path, params.content ?? previousContent]]);
}

/** `validate_params_for_multiple_files`: `content`/`file_name` cannot update a snippet of several files. */
export function refuseContentForMultipleFiles(current: SnippetFileMap, params: { file_name?: string; content?: string }): void {
  if ((params.content !== undefined || params.file_name !== undefined) && current.size > 1)
    throw serviceError("To update Snippets with multiple files, you must use the `files` parameter", 400);
}
