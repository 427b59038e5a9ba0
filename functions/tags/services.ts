// Tags::CreateService and Tags::DestroyService (GitLab 15.4). Each ref move is one compare-and-swap with
// its push event, in the git core's own transaction.
import type { GitCommitRow, User } from "../../db/schema";
import type { Database } from "../kernel/db";
import { apiError, checkUnmodifiedSince, notFound } from "../kernel/errors";
import { createTag, deleteRefWithEvent, isValidBranchName, readRefsWithCommits, resolveCommitRow, tagRef, type Repo } from "../shared/git";
import type { Caller } from "../shared/protected_branches/access";
import { checkTagUpdate, listProtectedTags, tagIsProtected } from "../shared/protected_tags";

export type CreatedTag = { name: string; target: string; message: string; commit: GitCommitRow; protected: boolean };

/**
 * `POST /projects/:id/repository/tags`: `Tag name invalid` (Gitlab::GitRefValidator), then
 * `Target <ref> is invalid`, then `Tag <name> already exists`, in Gitaly's order. A message (stripped)
 * makes an annotated tag with the caller as tagger. A protected tag the caller may not create is refused
 * with TagCheck's message (Gitaly's pre-receive hook runs after the existence check, so an existing tag
 * still says it exists).
 */
export async function createTagAt(db: Database, repo: Repo, user: User, input: { name: string; ref: string; message?: string; caller: Caller }): Promise<CreatedTag> {
  if (!isValidBranchName(input.name)) throw apiError("Tag name invalid", 400);
  const target = await resolveCommitRow(db, repo, input.ref);
  if (!target) throw apiError(`Target ${input.ref} is invalid`, 400);
  const protections = await listProtectedTags(db, repo.projectId);
  const decision = checkTagUpdate(protections, { ref: tagRef(input.name), before: null, after: target.oid, forced: false }, input.caller, { web: true });
  if (!decision.allowed) {
    if ((await readRefsWithCommits(db, repo, [tagRef(input.name)])).size > 0) throw apiError(`Tag ${input.name} already exists`, 400);
    throw apiError(decision.message, 400);
  }
  const message = input.message?.trim() ?? "";
  const created = await createTag(db, repo, {
    name: input.name,
    target: target.oid,
    message,
    tagger: { name: user.name, email: user.email },
    userId: user.id,
  });
  if (created.kind === "exists") throw apiError(`Tag ${input.name} already exists`, 400);
  return { name: input.name, target: created.target, message, commit: target, protected: tagIsProtected(protections, input.name) };
}

const DELETE_ATTEMPTS = 3;

/**
 * `DELETE /projects/:id/repository/tags/:tag_name`: `404 Tag Not Found`, 412 on a stale `If-Unmodified-Since`,
 * 400 with TagCheck's message for a protected tag and a caller below maintainer.
 */
export async function deleteTag(db: Database, repo: Repo, input: { name: string; userId: number; caller: Caller; ifUnmodifiedSince: string | undefined }): Promise<void> {
  const ref = tagRef(input.name);
  for (let attempt = 1; ; attempt++) {
    const found = (await readRefsWithCommits(db, repo, [ref])).get(ref);
    if (!found) throw notFound("Tag");
    if (attempt === 1) {
      checkUnmodifiedSince(input.ifUnmodifiedSince, found.commit?.authoredAt ?? null);
      const protections = await listProtectedTags(db, repo.projectId);
  const decision = checkTagUpdate(protections, { ref, before: found.target, after: null, forced: false }, input.caller, { web: true });
      if (!decision.allowed) throw apiError(decision.message, 400);
    }
    if ((await deleteRefWithEvent(db, repo, { ref, expected: found.target, userId: input.userId })) === "deleted") return;
    if (attempt >= DELETE_ATTEMPTS) throw apiError("Failed to remove tag", 400);
  }
}
