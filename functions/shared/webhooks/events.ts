import { isValidBranchName } from "../git";

/**
 * `BranchFilterValidator` (app/validators/branch_filter_validator.rb): blank, or a branch name in which
 * `*` stands for any run of characters; at most 4000 characters.
 */
export function validBranchFilter(filter: string): boolean {
  if (filter.trim() === "") return true;
  if (filter.length > 4000) return false;
  // Each `*` is checked as one ordinary character, so `release/*` is valid (deleting it would leave a
  // trailing `/`).
  return isValidBranchName(filter.replace(/\*/g, "x"));
}

/** `ActiveHookFilter` (wildcard strategy): does the push to `branch` match the hook's filter? */
export function branchMatches(filter: string | null, branch: string): boolean {
  if (!filter || filter.trim() === "") return true;
  const pattern = filter.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${pattern}$`).test(branch);
}
