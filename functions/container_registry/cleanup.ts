// Tag cleanup (Projects::ContainerRepository::CleanupTagsService of GitLab 15.4), shared by the bulk tag
// delete endpoint and the cleanup policies (ContainerExpirationPolicies::CleanupService) the cron runs
// through the `edgeforge-registry` queue; and the policy's attributes as `PUT /projects/:id` takes them.
import type { Executor } from "../kernel/db";
import { regexError } from "../shared/push_rules";
import * as q from "./queries";

/** ContainerExpirationPolicy.cadence_options, keep_n_options and older_than_options. */
export const CADENCES = ["1d", "7d", "14d", "1month", "3month"] as const;
export const KEEP_N = [1, 5, 10, 25, 50, 100] as const;
export const OLDER_THAN = ["7d", "14d", "30d", "90d"] as const;

/** `1h`, `2d`, `1month` … (ChronicDuration, as the cleanup policies take them), in milliseconds. */
export function durationMs(text: string): number | null {
  const units: Record<string, number> = { s: 1e3, m: 6e4, min: 6e4, h: 36e5, d: 864e5, day: 864e5, days: 864e5, w: 6048e5, week: 6048e5, weeks: 6048e5, month: 2592e6, months: 2592e6, y: 31536e6, year: 31536e6, years: 31536e6 };
  const match = /^\s*(\d+)\s*([a-z]+)\s*$/i.exec(text);
  const unit = match ? units[match[2].toLowerCase()] : undefined;
  return match && unit ? Number(match[1]) * unit : null;
}

/**
 * Ruby-style regex: `\A`/`\z` anchors are JavaScript's `^`/`$`; GitLab matches the whole name (`\A(?:…)\z`).
 * Differs from GitLab, which runs these patterns in RE2 (`untrusted_regexp`): JavaScript's engine
 * backtracks, so a pattern push rules refuse (shared/push_rules `regexError`: a quantified group holding
 * a quantifier or an alternation, backreferences, lookarounds) is refused here too, as an invalid regexp.
 * Tag names are at most 128 characters, which bounds what is left.
 */
export function wholeName(pattern: string): RegExp | null {
  const ruby = pattern.replace(/\\A/g, "^").replace(/\\[zZ]/g, "$");
  if (regexError(ruby) !== null) return null;
  try {
    return new RegExp(`^(?:${ruby})$`);
  } catch {
    return null;
  }
}

export type CleanupParams = { nameRegexDelete: string | null; nameRegexKeep: string | null; keepN: number | null; olderThan: string | null };
export type CleanupTag = { name: string; createdAt: Date };

/**
 * The tags the cleanup deletes, in GitLab's order of filters: never `latest`; names matching
 * `nameRegexDelete` and not `nameRegexKeep` (a null delete pattern matches only the empty name: nothing);
 * of those, all but the `keepN` newest; of those, the ones created before `olderThan` ago.
 */
export function tagsToDelete(tags: CleanupTag[], params: CleanupParams, now: Date): string[] {
  const remove = wholeName(params.nameRegexDelete ?? "");
  const keep = params.nameRegexKeep ? wholeName(params.nameRegexKeep) : null;
  if (!remove) return [];
  let candidates = tags.filter((t) => t.name !== "latest" && remove.test(t.name) && !keep?.test(t.name));
  candidates = [...candidates].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(params.keepN ?? 0);
  const age = params.olderThan ? durationMs(params.olderThan) : null;
  if (age !== null) candidates = candidates.filter((t) => now.getTime() - t.createdAt.getTime() > age);
  return candidates.map((t) => t.name);
}

/** Runs the cleanup on one repository; the names deleted. */
export async function cleanupRepository(db: Executor, repository: { id: number; tags: CleanupTag[] }, params: CleanupParams, now: Date): Promise<string[]> {
  const names = tagsToDelete(repository.tags, params, now);
  await q.deleteTags(db, repository.id, names);
  return names;
}

/**
 * ContainerExpirationPolicies::CleanupService: runs the project's policy (if it is still enabled and the
 * registry is on) over each of its repositories. Idempotent: a message delivered twice deletes nothing more.
 */
export async function runExpirationPolicy(db: Executor, projectId: number, now = new Date()): Promise<{ repositoryId: number; deleted: string[] }[]> {
  const policy = await q.expirationPolicyToRun(db, projectId);
  if (!policy) return [];
  const params: CleanupParams = { nameRegexDelete: policy.nameRegex, nameRegexKeep: policy.nameRegexKeep, keepN: policy.keepN, olderThan: policy.olderThan };
  const out = [];
  for (const repository of await q.repositoriesWithTags(db, projectId)) out.push({ repositoryId: repository.id, deleted: await cleanupRepository(db, repository, params, now) });
  return out;
}

export type PolicyAttributes = {
  cadence?: string;
  enabled?: boolean;
  keep_n?: number | null;
  older_than?: string | null;
  name_regex?: string | null;
  name_regex_delete?: string | null;
  name_regex_keep?: string | null;
};

/**
 * `container_expiration_policy_attributes` merged into the stored policy and checked as ContainerExpirationPolicy's validations (the
 * errors keyed `container_expiration_policy.<attribute>`, as the nested attributes report them); the
 * regexes are checked only when the policy ends up enabled, as GitLab does. `name_regex_delete` is read
 * as `name_regex` (the column's old name, still accepted by clients such as the Terraform provider).
 */
export async function checkExpirationPolicy(db: Executor, projectId: number, attrs: PolicyAttributes): Promise<{ errors: Record<string, string[]> } | { values: q.PolicyValues }> {
  const current = await q.expirationPolicy(db, projectId);
  const nameRegex = attrs.name_regex !== undefined ? attrs.name_regex : attrs.name_regex_delete;
  const next: q.PolicyValues = {
    cadence: attrs.cadence ?? current?.cadence ?? "1d",
    enabled: attrs.enabled ?? current?.enabled ?? false,
    keepN: attrs.keep_n !== undefined ? attrs.keep_n : (current ? current.keepN : 10),
    olderThan: attrs.older_than !== undefined ? attrs.older_than : (current ? current.olderThan : "90d"),
    nameRegex: nameRegex !== undefined ? nameRegex : (current ? current.nameRegex : ".*"),
    nameRegexKeep: attrs.name_regex_keep !== undefined ? attrs.name_regex_keep : (current ? current.nameRegexKeep : null),
  };
  const errors: Record<string, string[]> = {};
  const key = (name: string) => `container_expiration_policy.${name}`;
  if (!(CADENCES as readonly string[]).includes(next.cadence)) errors[key("cadence")] = ["is not included in the list"];
  if (next.olderThan !== null && !(OLDER_THAN as readonly string[]).includes(next.olderThan)) errors[key("older_than")] = ["is not included in the list"];
  if (next.keepN !== null && !(KEEP_N as readonly number[]).includes(next.keepN)) errors[key("keep_n")] = ["is not included in the list"];
  // The column is varchar(255), as GitLab's.
  if (next.nameRegex !== null && next.nameRegex.length > 255) errors[key("name_regex")] = ["is too long (maximum is 255 characters)"];
  if (next.enabled && !errors[key("name_regex")]) {
    for (const [name, pattern] of [["name_regex", next.nameRegex], ["name_regex_keep", next.nameRegexKeep]] as const) {
      const error = pattern ? regexError(pattern) : null;
      if (error) errors[key(name)] = [error];
    }
  }
  return Object.keys(errors).length ? { errors } : { values: next };
}

/** Writes what `checkExpirationPolicy` accepted. */
export function writeExpirationPolicy(db: Executor, projectId: number, values: q.PolicyValues): Promise<void> {
  return q.saveExpirationPolicy(db, projectId, values);
}
