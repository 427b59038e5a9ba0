import * as z from "zod";
import type { Snippet as SnippetModel } from "../../db/schema";
import { visibilityName } from "../kernel/access";
import type { NoteUser } from "./notes";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

/**
 * The one ref of a snippet's files (GitLab: the snippet repository's root ref, `Gitlab::DefaultBranch`).
 * Differs from GitLab: snippet files have no history, so this is their only ref, and the instance's
 * `default_branch_name` setting is not consulted.
 */
export const SNIPPET_REF = "main";

/**
 * A snippet with its author, its project's full path (null for a personal snippet, for URLs) and the
 * paths of its files, sorted as `git ls-files` lists them (empty: a snippet without a repository).
 */
export type SnippetRow = SnippetModel & { author: NoteUser | null; projectFullPath: string | null; filePaths: string[] };

function snippetUrl(row: SnippetRow, ctx: PresentContext): string {
  return row.projectFullPath === null
    ? webUrl(ctx, `-/snippets/${row.id}`)
    : webUrl(ctx, `${row.projectFullPath}/-/snippets/${row.id}`);
}

/**
 * API::Entities::Snippet, ProjectSnippet and PersonalSnippet (lib/api/entities/snippet.rb: the same
 * keys). `file_name` is the first file's path (`file_name_on_repo`) or the column of a snippet without
 * files; `files` lists each path with its raw URL at the snippet's ref.
 * Differs from GitLab: snippets have no git repository here (their files are rows), so
 * `ssh_url_to_repo` / `http_url_to_repo` are absent, as GitLab shows a snippet without a repository.
 */
export const Snippet = z
  .object({
    id: z.int(),
    title: z.string(),
    description: z.string().nullable(),
    visibility: z.enum(["private", "internal", "public"]),
    author: UserBasic.nullable(),
    updated_at: z.string().nullable(),
    created_at: z.string().nullable(),
    project_id: z.int().nullable(),
    web_url: z.string(),
    raw_url: z.string(),
    file_name: z.string().nullable(),
    files: z.array(z.object({ path: z.string(), raw_url: z.string() })),
  })
  .meta({ id: "Snippet" });
export function snippetEntity(row: SnippetRow, ctx: PresentContext): z.output<typeof Snippet> {
  const url = snippetUrl(row, ctx);
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    visibility: visibilityName(row.visibilityLevel),
    author: row.author ? userBasic(row.author, ctx) : null,
    updated_at: isoTime(row.updatedAt),
    created_at: isoTime(row.createdAt),
    project_id: row.projectId,
    web_url: url,
    raw_url: `${url}/raw`,
    file_name: row.filePaths[0] ?? row.fileName,
    files: row.filePaths.map((path) => ({ path, raw_url: `${url}/raw/${SNIPPET_REF}/${path}` })),
  };
}

/** Kept under its old name for the project snippet endpoints. */
export const projectSnippet = snippetEntity;
