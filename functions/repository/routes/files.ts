import { canCollaborate } from "../../shared/protected_branches/collaboration";
import * as z from "zod";
import type { GitCommitRow } from "../queries";
import { allowed } from "../../kernel/abilities";
import { requireUser } from "../../kernel/auth";
import { pipelinesForPush } from "../../shared/ci/coordinator";
import type { Ctx } from "../../kernel/env";
import { apiError, forbidden, notFound, paramsError, recordNotFound } from "../../kernel/errors";
import {
  blameFile,
  BlameTooLargeError,
  commitFiles,
  listTree,
  readCommitRows,
  repoOf,
  resolveCommitRow,
  RevWalk,
  type CommitAction,
  type Repo,
  type TreeListing,
} from "../../shared/git";
import { commitFailureMessage } from "../../shared/git/operations/messages";
import { callerOf, pushGuard } from "../../shared/protected_branches/access";
import { lfsPointer, visibleObjects } from "../../shared/lfs/read";
import { toBase64 } from "../../shared/git/pure/bytes";
import { getBlobZdata } from "../../shared/git/store/blobs";
import { inflate, MODE, modeNumber, TYPE_CODE } from "../../shared/git/pure/objects";
import { findProject, authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParams, readParamsWithPath } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { contentDisposition, detectContentType } from "../content_type";
import { blameRange, blobHeaders, fileWithContent, treeObject, type BlameGroup, type FileRow, RepositoryFile, TreeObject, BlameRange } from "../../entities/repository";
import * as q from "../queries";

/**
 * Repository files and trees (lib/api/files.rb, lib/api/repositories.rb, GitLab 15.4).
 * File writes are one commit each through the git core (Files::CreateService, UpdateService,
 * DeleteService). Not built: the changelog.
 */
export const fileRoutes = router();

/** `CGI.unescape`: `+` is a space, bad escapes stay as they are. */
function cgiUnescape(text: string): string {
  return text.replace(/\+/g, " ").replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * API::Validations::Validators::FilePath: `Gitlab::Utils.check_path_traversal!` (a path encoded twice, or
 * with a `..` segment, `.`/`..` alone or a newline) and `check_allowed_absolute_path!` (no absolute path).
 */
export function validFilePath(path: string): boolean {
  const decoded = cgiUnescape(path);
  if (decoded !== cgiUnescape(decoded)) return false;
  if (/(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/.test(decoded)) return false;
  return !path.startsWith("/");
}

const filePath = () =>
  p.string().superRefine((value, ctx) => {
    if (!validFilePath(value)) ctx.addIssue({ code: "custom", message: "should be a valid file path" });
  });

const GetFile = z.object({ file_path: filePath(), ref: p.nonBlank() });
/**
 * Grape's `requires :start, type: Integer, allow_blank: false, values: ->(v) { v > 0 }` inside
 * `optional :range, type: Hash`: missing, empty, not an integer, not positive, in that order.
 */
const blameLine = () =>
  z.any().transform((value, ctx): number => {
    if (value === undefined || value === null) {
      ctx.addIssue({ code: "custom", message: "is missing" });
      return z.NEVER;
    }
    if (typeof value === "string" && value.trim() === "") {
      ctx.addIssue({ code: "custom", message: "is empty" });
      return z.NEVER;
    }
    const n = typeof value === "number" ? value : typeof value === "string" && /^\s*[-+]?\d{1,15}\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n)) {
      ctx.addIssue({ code: "custom", message: "is invalid" });
      return z.NEVER;
    }
    if (n <= 0) {
      ctx.addIssue({ code: "custom", message: "does not have a valid value" });
      return z.NEVER;
    }
    return n;
  });
const GetBlame = z.object({
  file_path: filePath(),
  ref: p.nonBlank(),
  range: z.object({ start: blameLine(), end: blameLine() }).optional(),
});
const GetRawFile = z.object({ file_path: filePath(), ref: p.nonBlank().optional(), lfs: p.bool().optional() });

// Differs from GitLab only with its `repository_tree_gitaly_pagination` flag on (off by default in
// 15.4): `pagination=keyset` is then answered with offset pages, as GitLab does with the flag off.
const ListTree = pageParams.extend({
  ref: p.string().optional().describe("The name of a repository branch or tag, if not given the default branch is used"),
  path: p.string().optional().describe("The path of the tree"),
  recursive: p.bool().optional().describe("Used to get a recursive tree"),
  pagination: p.oneOf("legacy", "keyset", "none").optional().describe("Specify the pagination method (\"none\" is only valid if \"recursive\" is true)"),
  page_token: p.string().optional().describe("Record from which to start the keyset pagination"),
});

/** Path parameters win over the query string and the body (docs/compat.md, T2). */
async function fileParams<S extends z.ZodType>(c: Ctx, schema: S): Promise<z.output<S>> {
  return readParamsWithPath(c, schema);
}

async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `assign_file_vars!` + `blob_data`: the commit `ref` names (`404 Commit Not Found`), the blob at `path`
 * (`404 File Not Found`) and the last commit that touched it (`git log -1 <commit> -- <path>`).
 * Flat in the path's depth: the last commit comes from the commit index, and the blob is the one that
 * commit's change left at the path (a later commit on the walk would otherwise be the last one).
 */
async function fileAt(c: Ctx, repo: Repo, rev: string, path: string): Promise<{ commit: GitCommitRow; lastCommit: string; content: Uint8Array; mode: number; blobId: string }> {
  const db = c.var.db();
  const commit = await resolveCommitRow(db, repo, rev);
  if (!commit) throw notFound("Commit");
  const [lastCommit] = await new RevWalk(db, repo.poolId, { path, batch: 256 }).log({ kind: "tips", include: [commit.oid] }, { path, maxCount: 1 });
  if (!lastCommit) throw notFound("File");
  const change = await q.pathChange(db, repo, lastCommit, path);
  const mode = change?.newMode ?? null;
  // Deleted there, a directory (no change of its own), or a submodule: not a file.
  if (!change || change.status === "D" || !change.blob || !change.newOid || mode === null || mode === modeNumber(MODE.submodule)) throw notFound("File");
  if (change.blob.type !== TYPE_CODE.blob || (!change.blob.zdata && !change.blob.r2Key)) throw new Error(`blob ${change.newOid} is not readable`);
  const zdata = change.blob.zdata ?? (await getBlobZdata(change.blob.r2Key!));
  return { commit, lastCommit, content: inflate(zdata), mode, blobId: change.newOid };
}

async function fileRow(c: Ctx, repo: Repo, rev: string, ref: string | null, path: string) {
  const found = await fileAt(c, repo, rev, path);
  const row: FileRow = {
    path,
    size: found.content.length,
    contentSha256: await sha256Hex(found.content),
    ref,
    blobId: found.blobId,
    commitId: found.commit.oid,
    lastCommitId: found.lastCommit,
    executable: found.mode === modeNumber(MODE.executable),
  };
  return { row, content: found.content };
}

/**
 * GET /projects/:id/repository/files/:file_path (lib/api/files.rb). HEAD answers the same headers
 * (`X-Gitlab-File-Name`, …) without a body.
 */
fileRoutes.get("/projects/:id/repository/files/:file_path", { params: GetFile, response: RepositoryFile }, async (c) => {
  const params = await fileParams(c, GetFile);
  const project = await authorizedProject(c, "read_code");
  const { row, content } = await fileRow(c, repoOf(project), params.ref, params.ref, params.file_path);
  for (const [name, value] of Object.entries(blobHeaders(row))) c.header(name, value);
  return present(c, { ...row, contentBase64: toBase64(content) }, fileWithContent);
});

/**
 * GET /projects/:id/repository/files/:file_path/raw (lib/api/files.rb): the bytes, typed as Workhorse
 * types them; `ref` defaults to the default branch. HEAD answers the headers only.
 */
fileRoutes.get("/projects/:id/repository/files/:file_path/raw", { params: GetRawFile }, async (c) => {
  const params = await fileParams(c, GetRawFile);
  const project = await authorizedProject(c, "read_code");
  // `user_project.commit(nil)` is the default branch's head; an empty repository has none.
  const rev = params.ref ?? project.defaultBranch;
  if (!rev) throw notFound("Commit");
  const { row, content } = await fileRow(c, repoOf(project), rev, params.ref ?? null, params.file_path);
  const pointer = params.lfs ? lfsPointer(content) : null;
  if (pointer) {
    // `lfs=true` on an LFS pointer: the object's content (`present_carrierwave_file!`), if the project
    // sees the object (`project_allowed_access?`), else `not_found!`.
    const found = (await visibleObjects(c.var.db(), project.id, [pointer.oid])).get(pointer.oid);
    const object = found ? await c.env.BLOBS.get(found.file) : null;
    if (!object) throw recordNotFound();
    return c.body(object.body, 200, {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(object.size),
      "Content-Transfer-Encoding": "binary",
      // Differs from GitLab: the attachment is named after the file (GitLab names it after its storage file).
      "Content-Disposition": contentDisposition("application/octet-stream", row.path.slice(row.path.lastIndexOf("/") + 1)),
    });
  }
  const type = detectContentType(content);
  return c.body(new Uint8Array(content), 200, {
    ...blobHeaders(row),
    "Content-Type": type,
    "Content-Disposition": contentDisposition(type, row.path.slice(row.path.lastIndexOf("/") + 1)),
    // `no_cache_headers` (lib/api/helpers/headers_helpers.rb), as Rails normalises them.
    "Cache-Control": "max-age=0, private, must-revalidate, no-store, no-cache",
    Pragma: "no-cache",
    Expires: "Fri, 01 Jan 1990 00:00:00 GMT",
  });
});

/**
 * GET /projects/:id/repository/files/:file_path/blame (lib/api/files.rb, Gitlab::Blame#groups): the
 * file's lines grouped by the commit that last changed them, consecutive lines of one commit together,
 * computed by the git core (`shared/git/store/blame.ts`). HEAD answers the file's headers only, as
 * GitLab's `head …/blame` (which takes no `range`). A range past the end of the file answers `[]`
 * (Gitlab::Git::Blame turns git's "has only N lines" into no lines); its end is cut to the file.
 * Differs from GitLab: only exact renames are followed (see the git core), and a file changed by more
 * than MAX_BLAME_SUSPECTS commits answers 503 instead of running until Gitaly's deadline.
 */
fileRoutes.get("/projects/:id/repository/files/:file_path/blame", { params: GetBlame, response: [BlameRange], paginated: false }, async (c) => {
  const head = c.req.method === "HEAD";
  const params = head ? { ...(await fileParams(c, GetFile)), range: undefined } : await fileParams(c, GetBlame);
  const project = await authorizedProject(c, "read_code");
  const repo = repoOf(project);
  const { row, content } = await fileRow(c, repo, params.ref, params.ref, params.file_path);
  for (const [name, value] of Object.entries(blobHeaders(row))) c.header(name, value);
  if (head) return c.body(null, 200);
  if (params.range && params.range.start > params.range.end) throw apiError("range[start] must be less than or equal to range[end]", 400);
  const db = c.var.db();
  let blamed;
  try {
    blamed = await blameFile(db, repo.poolId, { commit: row.commitId, path: row.path, blob: row.blobId, content, range: params.range ?? null });
  } catch (error) {
    if (error instanceof BlameTooLargeError) throw apiError(`Blame is too large to compute: ${error.message}`, 503);
    throw error;
  }
  const commits = await readCommitRows(db, repo.poolId, [...new Set(blamed.commits)]);
  const decoder = new TextDecoder();
  const groups: BlameGroup[] = [];
  blamed.commits.forEach((oid, i) => {
    const line = decoder.decode(Uint8Array.from(blamed.lines[i], (ch) => ch.charCodeAt(0)));
    const last = groups[groups.length - 1];
    if (last && last.commit.oid === oid) last.lines.push(line);
    else groups.push({ commit: commits.get(oid)!, lines: [line] });
  });
  return present(c, groups, blameRange);
});

/** Tree#sorted_entries: directories, then files (symlinks included), then submodules, each in git's order. */
function sortedEntries(entries: TreeListing[]): TreeListing[] {
  return [...entries.filter((e) => e.type === "tree"), ...entries.filter((e) => e.type === "blob"), ...entries.filter((e) => e.type === "commit")];
}

const writeShape = {
  file_path: filePath(),
  branch: p.nonBlank().describe("Name of the branch to commit into. To create a new branch, also provide `start_branch`."),
  commit_message: p.nonBlank().describe("Commit message"),
  start_branch: p.string().optional().describe("Name of the branch to start the new commit from"),
  author_email: p.string().optional().describe("The email of the author"),
  author_name: p.string().optional().describe("The name of the author"),
  last_commit_id: p.string().optional().describe("Last known file commit id"),
};
const WriteFile = z.object({
  ...writeShape,
  content: p.string().describe("File content"),
  execute_filemode: p.bool().optional().describe("Enable / Disable the executable flag on the file path"),
  encoding: p.oneOf("base64", "text").optional().describe("File encoding"),
});
const DeleteFile = z.object(writeShape);

type WriteKind = "create" | "update" | "delete";

/**
 * One file write as one commit (lib/api/files.rb `commit_params`, Files::*Service): `start_branch`
 * defaults to `branch`; errors are 400 `{"message": …}` in the service's words; a protected branch
 * the user may not push to is 403 (`authorize_push_to_branch!`).
 */
async function writeFile(c: Ctx, kind: WriteKind) {
  const actor = requireUser(c);
  // Grape validates parameters before the endpoint finds the project (`user_project`).
  const params = await fileParams(c, kind === "delete" ? DeleteFile : WriteFile);
  const project = await findProject(c, c.req.param("id")!);
  // `authorize_push_to_branch!`: push_code, or a merge request from the branch allowing collaboration.
  if (!(await canCollaborate(c.var.db(), actor, project, params.branch))) throw forbidden("You are not allowed to push into this branch");
  const file = params as z.output<typeof WriteFile>;
  const lastCommitId = params.last_commit_id || null;
  const actions: CommitAction[] =
    kind === "create"
      ? [{ action: "create", filePath: params.file_path, content: file.content, encoding: file.encoding ?? "text", executeFilemode: file.execute_filemode ?? null }]
      : kind === "update"
        ? [
            { action: "update", filePath: params.file_path, content: file.content, encoding: file.encoding ?? "text", lastCommitId },
            ...(file.execute_filemode === undefined ? [] : [{ action: "chmod" as const, filePath: params.file_path, executeFilemode: file.execute_filemode }]),
          ]
        : [{ action: "delete", filePath: params.file_path, lastCommitId }];
  const user = actor.user;
  const result = await commitFiles(c.var.db(), repoOf(project), {
    mayPush: pushGuard(callerOf(actor, project), project, params.branch),
    branch: params.branch,
    startBranch: params.start_branch || params.branch,
    actions,
    message: params.commit_message,
    authorName: params.author_name ?? null,
    authorEmail: params.author_email ?? null,
    committer: { name: user.name, email: user.commitEmail || user.email },
    userId: user.id,
    // GitLab's pre-receive hook holds API commits to the push rule too (400 with its message).
    pushRules: true,
  });
  if (!result.ok) {
    if (result.failure.kind === "forbidden") throw forbidden("You are not allowed to push into this branch");
    throw apiError(commitFailureMessage(result.failure, kind === "update" ? "files_update" : kind === "delete" ? "files_delete" : "commits"), 400);
  }
  c.executionCtx.waitUntil(pipelinesForPush(c.env, project.id, { baseUrl: baseUrl(c) }).catch((e) => console.error("pipelines for push:", e)));
  if (kind === "delete") return c.body(null, 204);
  return c.json({ file_path: params.file_path, branch: params.branch }, kind === "create" ? 201 : 200);
}

/** POST /projects/:id/repository/files/:file_path (Files::CreateService) */
fileRoutes.post("/projects/:id/repository/files/:file_path", (c) => writeFile(c, "create"));

/** PUT /projects/:id/repository/files/:file_path (Files::UpdateService) */
fileRoutes.put("/projects/:id/repository/files/:file_path", (c) => writeFile(c, "update"));

/** DELETE /projects/:id/repository/files/:file_path (Files::DeleteService) */
fileRoutes.delete("/projects/:id/repository/files/:file_path", (c) => writeFile(c, "delete"));

/** GET /projects/:id/repository/tree (lib/api/repositories.rb, app/finders/repositories/tree_finder.rb) */
fileRoutes.get("/projects/:id/repository/tree", { params: ListTree, response: [TreeObject] }, async (c) => {
  const project = await authorizedProject(c, "read_code");
  const params = await readParams(c, ListTree);
  if (params.pagination === "none" && !params.recursive) throw paramsError('pagination cannot be "none" unless "recursive" is true');
  const repo = repoOf(project);
  const rev = params.ref ?? project.defaultBranch;
  const commit = rev ? await resolveCommitRow(c.var.db(), repo, rev) : null;
  if (!commit) throw notFound("Tree");
  // Gitaly answers an empty listing for a path that is not a directory at that commit (GitLab 15.4);
  // `.` is the root.
  const path = params.path === "." ? "" : params.path ?? "";
  const entries = sortedEntries((await listTree(c.var.db(), repo, commit.tree, path, !!params.recursive)) ?? []);
  if (params.pagination === "none") return present(c, entries, treeObject);
  const page = pageOf(params);
  paginate(c, page, entries.length);
  return present(c, entries.slice(page.offset, page.offset + page.limit), treeObject);
});
