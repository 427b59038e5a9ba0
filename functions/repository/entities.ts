import type { TreeListing } from "../shared/git";
import type { PresentContext } from "../kernel/present";

/** A file at a commit, as `blob_data` of lib/api/files.rb describes it. */
export type FileRow = {
  path: string;
  size: number;
  contentSha256: string;
  /** The `ref` parameter as sent (nil for `/raw` without one). */
  ref: string | null;
  blobId: string;
  commitId: string;
  lastCommitId: string;
  executable: boolean;
};

/** `blob_data` (lib/api/files.rb): the file's metadata, in GitLab's key order. */
export function blobData(row: FileRow) {
  return {
    file_name: row.path.slice(row.path.lastIndexOf("/") + 1),
    file_path: row.path,
    size: row.size,
    encoding: "base64",
    content_sha256: row.contentSha256,
    ref: row.ref,
    blob_id: row.blobId,
    commit_id: row.commitId,
    last_commit_id: row.lastCommitId,
    execute_filemode: row.executable,
  };
}

/** `GET /projects/:id/repository/files/:file_path`: `blob_data` plus the content, base64-encoded. */
export function fileWithContent(row: FileRow & { contentBase64: string }, _ctx?: PresentContext) {
  return { ...blobData(row), content: row.contentBase64 };
}

/**
 * `set_http_headers(blob_data)` (API::Helpers::HeadersHelpers): each key as `X-Gitlab-<Capitalized-Words>`,
 * each value as Ruby's `to_s` (nil → "").
 */
export function blobHeaders(row: FileRow): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(blobData(row))) {
    const name = key
      .split("_")
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join("-");
    headers[`X-Gitlab-${name}`] = value === null ? "" : String(value);
  }
  return headers;
}

/** API::Entities::TreeObject (lib/api/entities/tree_object.rb): modes are six digits (`040000`). */
export function treeObject(entry: TreeListing, _ctx?: PresentContext) {
  return {
    id: entry.oid,
    name: entry.name,
    type: entry.type,
    path: entry.path,
    mode: entry.mode.padStart(6, "0"),
  };
}
