import * as z from "zod";
import type { GitCommitRow } from "../../db/schema";
import { Commit, commit, type CommitContext } from "./commits";
import { webUrl } from "../kernel/present";

/** A branch as the entity needs it: its name, tip commit and what the caller may do. */
export type BranchRow = {
  name: string;
  commit: GitCommitRow;
  /** Merged into the default branch: its tip is an ancestor of the default branch's tip, not equal to it. */
  merged: boolean;
  /** `Gitlab::UserAccess#can_push_to_branch?`: a signed-in caller with push_code whom protection lets push. */
  canPush: boolean;
  /** A protected branch (a protection's name or wildcard matches it) and what the protection grants developers. */
  protected: boolean;
  developersCanPush: boolean;
  developersCanMerge: boolean;
  isDefault: boolean;
};

const UNESCAPED_IN_PATH = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/** Rails' `Journey::Router::Utils.escape_path`, as the `*id` glob of `project_tree_url` escapes a ref. */
export function escapeRefPath(ref: string): string {
  let out = "";
  for (const ch of ref) {
    if (UNESCAPED_IN_PATH.test(ch)) out += ch;
    else for (const byte of new TextEncoder().encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * API::Entities::Branch (lib/api/entities/branch.rb).
 */
export const Branch = z
  .object({
    name: z.string(),
    commit: Commit,
    merged: z.boolean(),
    protected: z.boolean(),
    developers_can_push: z.boolean(),
    developers_can_merge: z.boolean(),
    can_push: z.boolean(),
    default: z.boolean(),
    web_url: z.string(),
  })
  .meta({ id: "Branch" });
export function branch(row: BranchRow, ctx: CommitContext): z.output<typeof Branch> {
  return {
    name: row.name,
    commit: commit(row.commit, ctx),
    merged: row.merged,
    protected: row.protected,
    developers_can_push: row.developersCanPush,
    developers_can_merge: row.developersCanMerge,
    can_push: row.canPush,
    default: row.isDefault,
    web_url: webUrl(ctx, `${ctx.projectPath}/-/tree/${escapeRefPath(row.name)}`),
  };
}
