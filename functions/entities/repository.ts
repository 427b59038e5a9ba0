import * as z from "zod";
import { webUrl, type PresentContext } from "../kernel/present";
import type { GitCommitRow } from "../../db/schema";
import { Commit, commit, signatureDate, type CommitContext } from "./commits";

/** One file's change between two trees (Gitlab::Git::Diff). */
export type FileDiff = {
  oldPath: string;
  newPath: string;
  /** Octal modes as text, "0" when the side is absent (Gitlab::Git::Diff `a_mode`/`b_mode`). */
  aMode: string;
  bMode: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  /** Unified hunks, `Binary files … differ\n` for binary content, "" when pruned or only a mode/rename. */
  diff: string;
  tooLarge: boolean;
  binary: boolean;
  /** Lines added and removed (0 for binary or pruned files). */
  additions: number;
  deletions: number;
  oldOid: string | null;
  newOid: string | null;
};

/** Gitlab::Git::Compare's result: the commits `from..to` and the diffs. */
export type Comparison = {
  from: GitCommitRow;
  to: GitCommitRow;
  /** `from..to`, oldest first (empty when both are the same commit). */
  commits: GitCommitRow[];
  diffs: FileDiff[];
  same: boolean;
};

/** A contributor: commits counted by author name and email. */
export type Contributor = { name: string; email: string; commits: number };

/** One entry of a tree listing. */
export type TreeListing = { path: string; name: string; mode: string; oid: string; type: "tree" | "blob" | "commit" };

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
const BlobData = z.object({
  file_name: z.string(),
  file_path: z.string(),
  size: z.int(),
  encoding: z.string(),
  content_sha256: z.string(),
  ref: z.string().nullable(),
  blob_id: z.string(),
  commit_id: z.string(),
  last_commit_id: z.string(),
  execute_filemode: z.boolean(),
});
export function blobData(row: FileRow): z.output<typeof BlobData> {
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
export const RepositoryFile = BlobData.extend({ content: z.string() }).meta({ id: "RepositoryFile" });
export function fileWithContent(row: FileRow & { contentBase64: string }, _ctx?: PresentContext): z.output<typeof RepositoryFile> {
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
export const TreeObject = z
  .object({ id: z.string(), name: z.string(), type: z.enum(["tree", "blob", "commit"]), path: z.string(), mode: z.string() })
  .meta({ id: "TreeObject" });
export function treeObject(entry: TreeListing, _ctx?: PresentContext): z.output<typeof TreeObject> {
  return {
    id: entry.oid,
    name: entry.name,
    type: entry.type,
    path: entry.path,
    mode: entry.mode.padStart(6, "0"),
  };
}

/**
 * API::Entities::Diff (lib/api/entities/diff.rb, GitLab 15.4): `diff` is the patch without its
 * `---`/`+++` header. Shared by commit diffs, compare and merge request diffs.
 */
export const Diff = z
  .object({
    diff: z.string(),
    new_path: z.string(),
    old_path: z.string(),
    a_mode: z.string(),
    b_mode: z.string(),
    new_file: z.boolean(),
    renamed_file: z.boolean(),
    deleted_file: z.boolean(),
  })
  .meta({ id: "Diff" });
export function diff(file: FileDiff, _ctx?: PresentContext): z.output<typeof Diff> {
  return {
    diff: file.diff,
    new_path: file.newPath,
    old_path: file.oldPath,
    a_mode: file.aMode,
    b_mode: file.bMode,
    new_file: file.newFile,
    renamed_file: file.renamedFile,
    deleted_file: file.deletedFile,
  };
}

/**
 * API::Entities::Compare (lib/api/entities/compare.rb): `commit` is the newest commit of the range
 * (`commits.last`), `compare_timeout` whether the diffs overflowed (never: we do not cut the list).
 */
export const Compare = z
  .object({
    commit: Commit.nullable(),
    commits: z.array(Commit),
    diffs: z.array(Diff),
    compare_timeout: z.boolean(),
    compare_same_ref: z.boolean(),
    web_url: z.string(),
  })
  .meta({ id: "Compare" });
export function compare(result: Comparison, ctx: CommitContext): z.output<typeof Compare> {
  const commits = result.commits.map((row) => commit(row, ctx));
  return {
    commit: commits.length ? commits[commits.length - 1] : null,
    commits,
    diffs: result.diffs.map((file) => diff(file)),
    compare_timeout: false,
    compare_same_ref: result.same,
    web_url: webUrl(ctx, `${ctx.projectPath}/-/compare/${result.from.oid}...${result.to.oid}`),
  };
}

/** The body of `GET /repository/blobs/:sha` (a hash in lib/api/repositories.rb). */
export const Blob = z.object({ size: z.int(), encoding: z.string(), content: z.string(), sha: z.string() }).meta({ id: "Blob" });
export function blob(row: { size: number; content: string; sha: string }, _ctx?: PresentContext): z.output<typeof Blob> {
  return { size: row.size, encoding: "base64", content: row.content, sha: row.sha };
}

/** API::Entities::Contributor: Gitlab::Contributor's additions and deletions are always 0. */
export const ContributorEntity = z
  .object({ name: z.string(), email: z.string(), commits: z.int(), additions: z.int(), deletions: z.int() })
  .meta({ id: "Contributor" });
export function contributor(row: Contributor, _ctx?: PresentContext): z.output<typeof ContributorEntity> {
  return { name: row.name, email: row.email, commits: row.commits, additions: 0, deletions: 0 };
}

/** One group of `Gitlab::Blame#groups`: consecutive lines last changed by one commit. */
export type BlameGroup = { commit: GitCommitRow; lines: string[] };

/** API::Entities::BlameRange with API::Entities::BlameRangeCommit (lib/api/entities/blame_range*.rb). */
export const BlameRange = z
  .object({
    commit: z.object({
      id: z.string(),
      parent_ids: z.array(z.string()),
      message: z.string(),
      authored_date: z.string(),
      author_name: z.string(),
      author_email: z.string(),
      committed_date: z.string(),
      committer_name: z.string(),
      committer_email: z.string(),
    }),
    lines: z.array(z.string()),
  })
  .meta({ id: "BlameRange" });
export function blameRange(group: BlameGroup, _ctx?: PresentContext): z.output<typeof BlameRange> {
  const row = group.commit;
  return {
    commit: {
      id: row.oid,
      parent_ids: row.parents,
      message: row.message,
      authored_date: signatureDate(row.authoredAt, row.authorTz),
      author_name: row.authorName,
      author_email: row.authorEmail,
      committed_date: signatureDate(row.committedAt, row.committerTz),
      committer_name: row.committerName,
      committer_email: row.committerEmail,
    },
    lines: group.lines,
  };
}
