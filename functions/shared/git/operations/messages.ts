// GitLab's wording for the git core's typed failures (GitLab 15.4): Gitaly's index errors as
// Files::MultiService relays them, Commits::CreateService's validations, Commits::ChangeService's
// cherry-pick and revert messages. The files API words `last_commit_id` mismatches its own way.
import type { CommitFailure, PickKind } from "..";
import { PROHIBITED_HEX_BRANCH_NAME } from "../../protected_branches/rules";

export type MessageContext = "commits" | "files_update" | "files_delete";

export function commitFailureMessage(failure: CommitFailure, context: MessageContext = "commits"): string {
  switch (failure.kind) {
    case "too_many_actions":
      return `Too many actions (at most ${failure.max})`;
    case "start_branch_and_sha":
      return "You can't pass both start_branch and start_sha";
    case "invalid_start_sha":
      return `Invalid start_sha '${failure.sha}'`;
    case "start_sha_not_found":
      return `Cannot find start_sha '${failure.sha}'`;
    case "not_on_branch":
      return "You can only create or edit files when you are on a branch";
    case "branch_exists":
      return `A branch called '${failure.branch}' already exists. Switch to that branch in order to make changes`;
    case "cannot_create_branch":
      return `Something went wrong when we tried to create '${failure.branch}' for you: ${failure.reason === "invalid" ? "Branch name is invalid" : "Branch already exists"}`;
    case "prohibited_branch_name":
      // The pre-receive hook's refusal, relayed as `PreReceiveError#message`.
      return PROHIBITED_HEX_BRANCH_NAME;
    case "file_changed":
      // Files::UpdateService / Files::DeleteService (FileChangedError) and Files::MultiService.
      if (context === "files_update") return "You are attempting to update a file that has changed since you started editing it.";
      if (context === "files_delete") return "You are attempting to delete a file that has been previously updated.";
      return `The file has changed since you started editing it: ${failure.path}`;
    case "empty_path":
      return "You must provide a file path";
    case "path_traversal":
      return "Path cannot include directory traversal";
    case "invalid_path":
      return `invalid path: '${failure.path}'`;
    case "file_exists":
      return "A file with this name already exists";
    case "directory_exists":
      return "A directory with this name already exists";
    case "file_missing":
      return "A file with this name doesn't exist";
    case "file_too_large":
      // Differs from GitLab: a per-file limit protects the Worker's memory (docs/git.md, "Limits").
      return `File is too large: ${failure.path}`;
    case "unknown_action":
      return `Unknown action '${failure.action}'`;
    case "ref_moved":
      // Differs from GitLab: its wording comes from Gitaly's reference transaction; we retry first.
      return `Could not update ${failure.ref}. Please refresh and try again.`;
    case "push_rule":
      // The pre-receive hook's refusal, relayed as `PreReceiveError#message`.
      return failure.message;
  }
}

/** Commits::ChangeService's failure message. */
export function pickFailureMessage(kind: PickKind): string {
  const act = kind === "cherry_pick" ? "cherry-pick" : "revert";
  return `Sorry, we cannot ${act} this commit automatically. This commit may already have been ${act}ed, or a more recent commit may have updated some of its content.`;
}
