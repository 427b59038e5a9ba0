import { visibilityLevel } from "../../kernel/access";
import type { Actor, Ctx } from "../../kernel/env";
import { notFound, paramsError } from "../../kernel/errors";
import { SNIPPET_REF, type SnippetRow } from "../../entities/snippets";
import * as q from "../queries";
import { applyContentParams, applyFileActions, refuseContentForMultipleFiles, type FileAction } from "../services";
import type * as z from "zod";
import type { UpdateSnippet } from "../params";

/**
 * What project and personal snippets do alike: their files from the create parameters, an update, and
 * the raw answers (lib/api/helpers/snippets_helpers.rb `content_for`, `file_content_for`).
 */

/** The request's address for UserAgentDetail: `CF-Connecting-IP`, else the first `X-Forwarded-For`. */
export function requestDetail(c: Ctx) {
  const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
  return { userAgent: c.req.header("user-agent") || null, ipAddress: c.req.header("cf-connecting-ip")?.trim() || forwarded || "127.0.0.1" };
}

/** `process_create_params`: `files` become create actions; `content` with `file_name` one file. */
export function filesToCreate(params: { files?: { file_path: string; content: string }[]; content?: string; file_name?: string }): q.SnippetFileMap {
  // `given :content do requires :file_name end`.
  if (params.content !== undefined && params.file_name === undefined) throw paramsError("file_name is missing");
  const actions: FileAction[] = params.files
    ? params.files.map((f) => ({ action: "create", file_path: f.file_path, content: f.content }))
    : [{ action: "create", file_path: params.file_name, content: params.content }];
  return applyFileActions(new Map(), actions, { creating: true });
}

/** Snippets::UpdateService: the columns, and the files when `files`, `content` or `file_name` change them. */
export async function updateSnippet(c: Ctx, snippet: SnippetRow, params: z.output<typeof UpdateSnippet>): Promise<void> {
  const db = c.var.db();
  const current = await q.snippetFileMap(db, snippet.id);
  refuseContentForMultipleFiles(current, params);
  let files: q.SnippetFileMap | null = null;
  if (params.files?.length) files = applyFileActions(current, params.files);
  else if (params.content !== undefined || params.file_name !== undefined) files = applyContentParams(current, snippet, params);
  const columns = {
    ...(params.title !== undefined ? { title: params.title } : {}),
    ...(params.description !== undefined ? { description: params.description } : {}),
    ...(params.visibility !== undefined ? { visibilityLevel: visibilityLevel(params.visibility) } : {}),
  };
  await q.updateSnippet(db, snippet.id, columns, files);
}

/** `send_git_blob`'s headers: plain text, inline, named after the file. */
function blobResponse(c: Ctx, name: string, content: string) {
  return c.body(content, 200, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Disposition": `inline; filename="${name.replace(/["\\]/g, "")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
  });
}

/** `content_for`: the first file; a snippet without files answers its `content` as an attachment. */
export async function rawContent(c: Ctx, snippet: SnippetRow) {
  const first = snippet.filePaths[0];
  if (first === undefined) return c.body(snippet.content, 200, { "Content-Type": "text/plain; charset=utf-8", "Content-Disposition": "attachment" });
  const content = await q.snippetFileContent(c.var.db(), snippet.id, first);
  return blobResponse(c, first.slice(first.lastIndexOf("/") + 1), content ?? "");
}

/**
 * `file_content_for`: a file at a ref. `404 Snippet Not Found` without files (`repo_exists?`),
 * `404 Reference Not Found` for another ref than the snippet's one, `404 File Not Found`.
 */
export async function rawFile(c: Ctx, snippet: SnippetRow, ref: string, path: string) {
  if (snippet.filePaths.length === 0) throw notFound("Snippet");
  if (ref !== SNIPPET_REF && ref !== "HEAD") throw notFound("Reference");
  const content = await q.snippetFileContent(c.var.db(), snippet.id, path);
  if (content === null) throw notFound("File");
  return blobResponse(c, path.slice(path.lastIndexOf("/") + 1), content);
}

/** Whether the actor may not create personal snippets (GlobalPolicy: external users may not). */
export function mayCreatePersonalSnippet(actor: Actor): boolean {
  return !actor.user.external;
}
