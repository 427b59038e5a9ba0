// Branch and tag writes: one CAS and its push event in one statement. Outcomes are typed; the routes
// map them to their endpoint's GitLab messages.
import type { Database } from "../../../kernel/db";
import { tagObject, type RawObject } from "../pure/objects";
import { branchRef } from "../pure/refnames";
import { swapRefWithEvent } from "../store/refs";
import type { Repo } from "../store/revisions";
import { writeObjects } from "../store/objects";
import { ident, type Person } from "./worktree";


/** Creates `refs/heads/<name>` at a commit. `exists` when the branch is already there. */
export async function createBranch(db: Database, repo: Repo, input: { name: string; target: string; userId?: number | null }): Promise<"created" | "exists"> {
  const ref = branchRef(input.name);
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: ref, oldTarget: null, newTarget: input.target, userId: input.userId ?? null });
  return won ? "created" : "exists";
}

/**
 * Deletes a ref if it still points where the caller read it (`expected`): `moved` when another writer
 * changed it meanwhile, `missing` when it is gone.
 */
export async function deleteRefWithEvent(db: Database, repo: Repo, input: { ref: string; expected: string; userId?: number | null }): Promise<"deleted" | "moved"> {
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: input.ref, oldTarget: input.expected, newTarget: null, userId: input.userId ?? null });
  return won ? "deleted" : "moved";
}

/**
 * Creates `refs/tags/<name>` at a commit: lightweight, or annotated when `message` is non-blank (a tag
 * object with the user as tagger, GitLab's Tags::CreateService). Returns the ref as stored.
 */
export async function createTag(
  db: Database,
  repo: Repo,
  input: { name: string; target: string; message?: string | null; tagger: Person; userId?: number | null; now?: Date },
): Promise<{ kind: "created"; target: string; peeled: string | null } | { kind: "exists" }> {
  const ref = `refs/tags/${input.name}`;
  let target = input.target;
  let peeled: string | null = null;
  let tagObj: RawObject | null = null;
  if (input.message && input.message.trim() !== "") {
    tagObj = await tagObject({ object: input.target, type: "commit", tag: input.name, tagger: ident(input.tagger, input.now ?? new Date()), message: input.message });
    target = tagObj.oid;
    peeled = input.target;
  }
  // Objects first (ON CONFLICT DO NOTHING: an unreachable tag object is harmless, docs/git.md, "Principles"), then the
  // ref and its push event in one statement.
  if (tagObj) await writeObjects(db, repo.poolId, [tagObj]);
  const won = await swapRefWithEvent(db, { projectId: repo.projectId, name: ref, oldTarget: null, newTarget: target, peeled, userId: input.userId ?? null });
  return won ? { kind: "created" as const, target, peeled } : { kind: "exists" as const };
}
