// Reference names (docs/git.md, "Refs"): `git check-ref-format` rules, and GitLab's extra rules for branch names.

/**
 * `git check-ref-format <name>` for a full name (`refs/heads/x`): no component starting with `.` or
 * ending with `.lock`, no `..`, no control characters, space, `~ ^ : ? * [ \`, no `@{`, not `@`,
 * no leading `-`… of a component, no `//`, not ending with `/` or `.`.
 */
export function isValidRefName(name: string): boolean {
  if (name === "" || name === "@") return false;
  if (name.startsWith("/") || name.endsWith("/") || name.endsWith(".")) return false;
  if (name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
    if (" ~^:?*[\\".includes(name[i])) return false;
  }
  for (const component of name.split("/")) {
    if (component === "" || component.startsWith(".") || component.endsWith(".lock")) return false;
  }
  return true;
}

/**
 * A branch or tag name GitLab accepts (`Gitlab::GitRefValidator.validate`): check-ref-format of
 * `refs/heads/<name>`, not `HEAD`, not starting with `-` or with `refs/heads/`, `refs/remotes/`.
 */
export function isValidBranchName(name: string): boolean {
  if (!name || name === "HEAD" || name.startsWith("-")) return false;
  if (name.startsWith("refs/heads/") || name.startsWith("refs/remotes/")) return false;
  return isValidRefName(`refs/heads/${name}`);
}

/**
 * A branch name that reads as a commit id: 40 hexadecimal digits (Gitlab::Checks::BranchCheck
 * `prohibited_branch_checks`, `/\A\h{40}\z/`). Valid for git, but refused by GitLab's pre-receive checks
 * for every push that does not delete the branch (a git push, a branch or a commit through the API).
 */
export function isProhibitedBranchName(name: string): boolean {
  return /^[0-9a-fA-F]{40}$/.test(name);
}

export const branchRef = (name: string) => `refs/heads/${name}`;
export const tagRef = (name: string) => `refs/tags/${name}`;

/** `refs/heads/main` → `main`; null for other namespaces. */
export function branchName(ref: string): string | null {
  return ref.startsWith("refs/heads/") ? ref.slice(11) : null;
}

export function tagName(ref: string): string | null {
  return ref.startsWith("refs/tags/") ? ref.slice(10) : null;
}
