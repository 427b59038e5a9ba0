// Typed outcomes of the write operations. The git core says what went wrong; the calling domain says
// it in GitLab's words (functions/shared/git/operations/messages.ts), since the same failure reads differently per
// endpoint (the commits API and the files API word `last_commit_id` mismatches differently).

export type CommitFailure =
  | { kind: "too_many_actions"; max: number }
  | { kind: "start_branch_and_sha" }
  | { kind: "invalid_start_sha"; sha: string }
  | { kind: "start_sha_not_found"; sha: string }
  | { kind: "not_on_branch" }
  | { kind: "branch_exists"; branch: string }
  | { kind: "cannot_create_branch"; branch: string; reason: "invalid" | "exists" }
  /** Refused by GitLab's pre-receive BranchCheck (a 40-hex name), after the service's own validations. */
  | { kind: "prohibited_branch_name" }
  | { kind: "file_changed"; path: string }
  | { kind: "empty_path" }
  | { kind: "path_traversal" }
  | { kind: "invalid_path"; path: string }
  | { kind: "file_exists"; path: string }
  | { kind: "directory_exists"; path: string }
  | { kind: "file_missing"; path: string }
  | { kind: "file_too_large"; path: string }
  | { kind: "unknown_action"; action: string }
  | { kind: "ref_moved"; ref: string }
  /** Refused by the project's push rule (GitLab's pre-receive hook), in GitLab's words. */
  | { kind: "push_rule"; message: string };

/** Thrown inside the operations (the work tree reports deep in a recursion); caught at their edge. */
export class CommitFailed extends Error {
  constructor(readonly failure: CommitFailure) {
    super(failure.kind);
  }
}

export const fail = (failure: CommitFailure): never => {
  throw new CommitFailed(failure);
};
