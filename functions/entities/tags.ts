import type { GitCommitRow } from "../../db/schema";
import { commit, type CommitContext } from "./commits";

/** A tag as the entity needs it: `target` is the tag object for an annotated tag, else the commit. */
export type TagRow = { name: string; message: string; target: string; commit: GitCommitRow | null };

/**
 * API::Entities::Tag (lib/api/entities/tag.rb). A lightweight tag's message is empty, as Gitaly reports it.
 * Differs from GitLab: releases and protected tags are not built, so `release` is null and `protected` false.
 */
export function tag(row: TagRow, ctx: CommitContext) {
  return {
    name: row.name,
    message: row.message,
    target: row.target,
    commit: row.commit ? commit(row.commit, ctx) : null,
    release: null,
    protected: false,
  };
}
