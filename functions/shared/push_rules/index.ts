import type { PushRule } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { pushRuleContext, type PushRuleContext } from "./queries";

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

/**
 * GitLab's `files_denylist.yml` (ee/lib/gitlab/checks, 15.4): the paths `prevent_secrets` refuses,
 * matched against a new file's full path.
 */
export const FILES_DENYLIST = [
  "aws\\/credentials$",
  "(ssh|config)\\/(personal|server)_(rsa|dsa|ed25519|ecdsa|ecdsa_sk|ed25519_sk)",
  "id_rsa$",
  "id_dsa$",
  "id_ed25519$",
  "id_ecdsa$",
  "id_ecdsa_sk$",
  "id_ed25519_sk$",
  "\\.(pem|key)$",
  "[._]history$",
];

const MIB = 1024 * 1024;

export type PushedCommit = { oid: string; message: string; authorEmail: string; committerEmail: string; signed: boolean };
export type PushedRef = { ref: string; before: string | null; after: string | null };
/** The files a push brings: the paths its commits add (against their first parents) and its new blobs' sizes with a path of each. */
export type PushedFiles = { added: string[]; blobs: { path: string; size: number }[] };

export type { PushRuleContext } from "./queries";
export { pushRuleContext, pushRuleContextSql, parsePushRuleContext } from "./queries";
import { knownEmails } from "./queries";

/** Whether the rule looks at the pushed files (their paths or sizes), which cost a diff to know. */
export const checksFiles = (rule: PushRule) => !!rule.fileNameRegex || rule.preventSecrets || rule.maxFileSize > 0;

/**
 * The first push rule the push breaks, as GitLab words it (ee/lib/ee/gitlab/checks/push_rules/*), or
 * null. `commits`: the commits the push brings; `files`: what they add, computed only when the rule
 * looks at files.
 */
export async function pushRuleViolation(
  db: Executor,
  projectId: number,
  userId: number,
  refs: PushedRef[],
  commits: PushedCommit[],
  files: () => Promise<PushedFiles>,
): Promise<string | null> {
  const emails = [...new Set(commits.map((c) => c.authorEmail))];
  const { rule, ownEmails, knownEmails } = await pushRuleContext(db, projectId, userId, emails);
  if (!rule) return null;
  const pushed = commits.length && checksFiles(rule) ? await files() : null;
  return violation(rule, refs, commits, ownEmails, knownEmails, pushed);
}

/** Ruby's String#inspect, as GitLab quotes a pattern in the file name message. */
const inspect = (text: string) => `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`).replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/#(?=[{$@])/g, "\\#")}"`;

/**
 * The checks in GitLab's order: DiffCheck (file names: `file_name_regex`, then the secrets list when
 * `prevent_secrets`, on paths the commits add), then PushRuleCheck: each ref (TagCheck, BranchCheck with
 * its CommitCheck), then FileSizeCheck.
 */
export function violation(rule: PushRule, refs: PushedRef[], commits: PushedCommit[], ownEmails: Set<string>, knownEmails: Set<string>, files: PushedFiles | null = null): string | null {
  if (files && (rule.fileNameRegex || rule.preventSecrets)) {
    // PushRule#filename_denylisted?: the secrets list first, then the rule's own pattern.
    const patterns = [...(rule.preventSecrets ? FILES_DENYLIST : []), ...(rule.fileNameRegex ? [rule.fileNameRegex] : [])];
    for (const path of files.added) {
      const pattern = patterns.find((p) => matches(p, path));
      if (pattern !== undefined) return `File name ${path} was prohibited by the pattern ${inspect(pattern)}.`;
    }
  }
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
  // FileSizeCheck: `bytes_to_megabytes(size) > max_file_size`, so a file of exactly the limit passes.
  if (files && rule.maxFileSize > 0) {
    const large = files.blobs.find((b) => b.size > rule.maxFileSize * MIB);
    if (large) return `File "${large.path}" is larger than the allowed size of ${rule.maxFileSize} MB. Use Git LFS to manage this file.`;
  }
  return null;
}

/** A commit GitLab writes for an API call, as the push rule checks see it (Gitaly's hooks with protocol `web`). */
export type WrittenCommit = { message: string; authorEmail: string; committerEmail: string };

/** A commit made through the commits or files API, with the files it brings (known from its actions). */
export type ApiCommit = WrittenCommit & { branch: string; branchCreated: boolean; files: PushedFiles };

/**
 * The checks on what GitLab writes itself, the pre-receive hook of Gitaly's operations (protocol `web`),
 * with two exceptions GitLab makes for them: `reject_unsigned_commits` does not apply (its CommitCheck
 * lets commits GitLab signs or writes through), and `deny_delete_tag` does not either (TagCheck skips
 * `updated_from_web?`: a tag deleted through the API or the UI is allowed).
 */
function webViolation(context: PushRuleContext & { rule: PushRule }, ref: PushedRef, commits: WrittenCommit[], known: Set<string>, files: PushedFiles | null): string | null {
  const pushed = commits.map((c) => ({ oid: "", message: c.message, authorEmail: c.authorEmail, committerEmail: c.committerEmail, signed: true }));
  // A deletion from the web is no TagCheck matter: `after: ""` keeps `violation` from seeing one.
  const moved = ref.after === null && ref.ref.startsWith("refs/tags/") ? { ...ref, after: "" } : ref;
  return violation(context.rule, [moved], pushed, context.ownEmails, known, files);
}

/**
 * The first push rule an API commit breaks (`POST /repository/commits`, the files API), or null. All its
 * authors were asked about in the state read, and its files are known from its actions.
 */
export function apiCommitViolation(context: PushRuleContext, commit: ApiCommit): string | null {
  if (!context.rule) return null;
  const ref = { ref: `refs/heads/${commit.branch}`, before: commit.branchCreated ? null : "", after: "" };
  return webViolation({ ...context, rule: context.rule }, ref, [commit], context.knownEmails, commit.files);
}

/**
 * The first push rule a write GitLab makes for an API call breaks (a merge, squash, cherry-pick, revert
 * or rebase: the ref it moves and the new commits it writes), or null. Authors the context was not asked
 * about are looked up (one statement) only when `member_check` needs them; the files are diffed only
 * when the rule looks at files.
 */
export async function writeViolation(
  db: Executor,
  context: PushRuleContext | null,
  write: { ref: PushedRef; commits: WrittenCommit[]; files: () => Promise<PushedFiles> },
): Promise<string | null> {
  if (!context?.rule) return null;
  const rule = context.rule;
  let known = context.knownEmails;
  if (rule.memberCheck) {
    const missing = [...new Set(write.commits.map((c) => c.authorEmail.toLowerCase()))].filter((e) => !context.asked.has(e));
    if (missing.length) known = new Set([...known, ...(await knownEmails(db, missing))]);
  }
  const files = write.commits.length && checksFiles(rule) ? await write.files() : null;
  return webViolation({ ...context, rule }, write.ref, write.commits, known, files);
}

/** `branch_name_regex` on a branch created through the API (POST /repository/branches). */
export function newBranchViolation(rule: PushRule | null, branch: string): string | null {
  if (!rule) return null;
  return violation(rule, [{ ref: `refs/heads/${branch}`, before: null, after: "" }], [], new Set(), new Set());
}
