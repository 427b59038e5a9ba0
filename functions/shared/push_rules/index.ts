import type { PushRule } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { pushRuleContext } from "./queries";

/**
 * Push rules (EE's Gitlab::Checks::PushRules::*, 15.4). GitLab matches them with RE2, in linear time.
 * Differs from GitLab: JavaScript's backtracking RegExp runs them, so a rule is accepted only in RE2's
 * syntax without what makes backtracking explode: no backreferences or lookarounds (RE2 has none), no
 * quantified group that itself holds a quantifier or an alternation (`(a+)+`, `(a|a)*`); and what is
 * matched is cut to 64 KiB. Such a pattern backtracks at most polynomially on that input.
 */
export function regexError(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch (error) {
    return `not valid RE2 syntax: ${(error as Error).message}`;
  }
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(pattern)) return "not valid RE2 syntax: backreferences and lookarounds are not supported";
  // Quantified groups: find each group's body and what follows its closing parenthesis.
  const stack: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end > 0) i = end;
      continue;
    }
    if (ch === "(") stack.push(i);
    if (ch === ")" && stack.length) {
      const start = stack.pop()!;
      const body = pattern.slice(start + 1, i).replace(/\\./g, "").replace(/\[[^\]]*\]/g, "");
      if (/^[*+?{]/.test(pattern.slice(i + 1)) && /[*+{|]/.test(body.replace(/^\?:/, "")))
        return "is too complex: a repeated group may not hold a repetition or an alternation";
    }
  }
  return null;
}

const MAX_INPUT = 64 * 1024;
const matches = (pattern: string, text: string, multiline = false) => new RegExp(pattern, multiline ? "m" : "").test(text.slice(0, MAX_INPUT));

export type PushedCommit = { oid: string; message: string; authorEmail: string; committerEmail: string; signed: boolean };
export type PushedRef = { ref: string; before: string | null; after: string | null };

/**
 * The first push rule the push breaks, as GitLab words it (ee/lib/ee/gitlab/checks/push_rules/*), or
 * null. `commits`: the commits the push brings. Not checked here: `file_name_regex`,
 * `max_file_size` and `prevent_secrets` (they need the pushed trees' paths; stored, not enforced).
 */
export async function pushRuleViolation(db: Executor, projectId: number, userId: number, refs: PushedRef[], commits: PushedCommit[]): Promise<string | null> {
  const emails = [...new Set(commits.map((c) => c.authorEmail))];
  const { rule, ownEmails, knownEmails } = await pushRuleContext(db, projectId, userId, emails);
  if (!rule) return null;
  return violation(rule, refs, commits, ownEmails, knownEmails);
}

export function violation(rule: PushRule, refs: PushedRef[], commits: PushedCommit[], ownEmails: Set<string>, knownEmails: Set<string>): string | null {
  for (const r of refs) {
    if (rule.denyDeleteTag && r.ref.startsWith("refs/tags/") && r.after === null) return "You cannot delete a tag";
    const branch = r.ref.startsWith("refs/heads/") ? r.ref.slice("refs/heads/".length) : null;
    // BranchCheck: only new branches are held to the pattern.
    if (branch !== null && r.before === null && r.after !== null && rule.branchNameRegex && !matches(rule.branchNameRegex, branch))
      return `Branch name does not follow the pattern '${rule.branchNameRegex}'`;
  }
  for (const c of commits) {
    if (rule.commitMessageRegex && !matches(rule.commitMessageRegex, c.message, true))
      return `Commit message does not follow the pattern '${rule.commitMessageRegex}'`;
    if (rule.commitMessageNegativeRegex && matches(rule.commitMessageNegativeRegex, c.message, true))
      return `Commit message contains the forbidden pattern '${rule.commitMessageNegativeRegex}'`;
    if (rule.authorEmailRegex && !matches(rule.authorEmailRegex, c.authorEmail))
      return `Author's commit email '${c.authorEmail}' does not follow the pattern '${rule.authorEmailRegex}'`;
    if (rule.memberCheck && !knownEmails.has(c.authorEmail.toLowerCase())) return `Author '${c.authorEmail}' is not a member of team`;
    if (rule.commitCommitterCheck && !ownEmails.has(c.committerEmail.toLowerCase()))
      return `You cannot push commits for '${c.committerEmail}'. You can only push commits that were committed with one of your own verified emails.`;
    // Differs from GitLab: a commit counts as signed when it carries a signature (`gpgsig`); GitLab also verifies it.
    if (rule.rejectUnsignedCommits && !c.signed) return "Commit must be signed with a GPG key";
  }
  return null;
}
