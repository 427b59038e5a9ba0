import type { Snippet } from "../../db/schema";
import { visibilityName } from "../kernel/access";
import type { NoteUser } from "../shared/issuables/noteables";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { userBasic } from "../users/entities";

/** A project snippet with its author and its project's full path (for URLs). */
export type SnippetRow = Snippet & { author: NoteUser | null; projectFullPath: string };

/**
 * API::Entities::ProjectSnippet (lib/api/entities/project_snippet.rb, a Snippet).
 * Differs from GitLab: snippets have no repository here, so `files` is `[]` and
 * `ssh_url_to_repo` / `http_url_to_repo` are absent, as GitLab shows a snippet without a repository.
 */
export function projectSnippet(row: SnippetRow, ctx: PresentContext) {
  const url = webUrl(ctx, `${row.projectFullPath}/-/snippets/${row.id}`);
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
    file_name: row.fileName,
    files: [],
  };
}
