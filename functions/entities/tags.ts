import * as z from "zod";
import type { GitCommitRow } from "../../db/schema";
import { Commit, commit, type CommitContext } from "./commits";

/** A tag as the entity needs it: `target` is the tag object for an annotated tag, else the commit. */
export type TagRow = { name: string; message: string; target: string; commit: GitCommitRow | null; protected?: boolean; release?: { tagName: string; description: string | null } | null };

/**
 * API::Entities::Tag (lib/api/entities/tag.rb). A lightweight tag's message is empty, as Gitaly reports it.
 * `release` is the tag's release (its tag name and description) and `protected` whether a protected tag matches.
 */
/** API::Entities::Release as a tag's `release`, reduced to what a tag shows. */
const TagRelease = z.object({ tag_name: z.string(), description: z.string().nullable() });
export const Tag = z
  .object({
    name: z.string(),
    message: z.string(),
    target: z.string(),
    commit: Commit.nullable(),
    release: TagRelease.nullable(),
    protected: z.boolean(),
  })
  .meta({ id: "Tag" });
export function tag(row: TagRow, ctx: CommitContext): z.output<typeof Tag> {
  return {
    name: row.name,
    message: row.message,
    target: row.target,
    commit: row.commit ? commit(row.commit, ctx) : null,
    release: row.release ? { tag_name: row.release.tagName, description: row.release.description } : null,
    protected: row.protected ?? false,
  };
}
