import { evaluate } from "./expression";
import { inheritedVariables, type Config, type JobSpec, type Need, type Policy, type Rule } from "./yaml";

/**
 * Seeding (docs/ci.md, "Creating a pipeline", steps 5-6; lib/gitlab/ci/pipeline/seed/build.rb, lib/gitlab/ci/build/rules.rb,
 * lib/gitlab/ci/build/policy/): which jobs a pipeline gets, with what `when` and `allow_failure`.
 */
export type SeedContext = {
  /** Predefined, root YAML and API variables: what `rules:if` reads (job variables are added per job). */
  variables: Record<string, string>;
  apiVariables: Record<string, string>;
  source: string;
  ref: string;
  tag: boolean;
  /** Paths changed by the push; null when there is no push diff (then `changes` is true). */
  changedPaths: string[] | null;
  /** Every file path at the pipeline's sha (for `exists`), read lazily. */
  files: () => Promise<string[]>;
};

export type SeededJob = {
  spec: JobSpec;
  when: string;
  allowFailure: boolean;
  needs: Need[] | null;
  variables: Record<string, string>;
  startIn: string | null;
};

export class SeedError extends Error {}

/** `fnmatch` with FNM_PATHNAME | FNM_DOTMATCH | FNM_EXTGLOB, as `changes` and `exists` use it. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else if (ch === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) out += "\\{";
      else {
        out += `(?:${glob.slice(i + 1, end).split(",").map((s) => s.replace(/[.+^$()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")).join("|")})`;
        i = end;
      }
    } else out += ch.replace(/[.+^$()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

const anyPathMatches = (globs: string[], paths: string[]) => {
  const patterns = globs.map(globToRegExp);
  return paths.some((p) => patterns.some((re) => re.test(p)));
};

async function ruleMatches(rule: Rule, vars: Record<string, string>, ctx: SeedContext): Promise<boolean> {
  if (rule.if !== undefined && !evaluate(rule.if, vars)) return false;
  if (rule.changes !== undefined && ctx.changedPaths !== null && !anyPathMatches(rule.changes, ctx.changedPaths)) return false;
  if (rule.exists !== undefined && !anyPathMatches(rule.exists, await ctx.files())) return false;
  return true;
}

/** `rules`: the first matching rule wins; none or `when: never` drops the job. Also `workflow:rules`. */
export async function matchRules(rules: Rule[], vars: Record<string, string>, ctx: SeedContext): Promise<Rule | null> {
  for (const rule of rules) if (await ruleMatches(rule, vars, ctx)) return rule.when === "never" ? null : rule;
  return null;
}

const REF_KEYWORDS: Record<string, (ctx: SeedContext) => boolean> = {
  branches: (ctx) => !ctx.tag && ctx.source !== "merge_request_event",
  tags: (ctx) => ctx.tag,
  api: (ctx) => ctx.source === "api",
  web: (ctx) => ctx.source === "web",
  pushes: (ctx) => ctx.source === "push",
  schedules: (ctx) => ctx.source === "schedule",
  triggers: (ctx) => ctx.source === "trigger",
  pipelines: (ctx) => ctx.source === "pipeline" || ctx.source === "parent_pipeline",
  external: (ctx) => ctx.source === "external",
  chat: (ctx) => ctx.source === "chat",
  merge_requests: (ctx) => ctx.source === "merge_request_event",
  external_pull_requests: (ctx) => ctx.source === "external_pull_request_event",
};

function refMatches(pattern: string, ctx: SeedContext): boolean {
  const keyword = REF_KEYWORDS[pattern];
  if (keyword) return keyword(ctx);
  const name = pattern.includes("@") ? pattern.slice(0, pattern.indexOf("@")) : pattern;
  const re = /^\/(.*)\/([a-z]*)$/s.exec(name);
  if (re) {
    try {
      return new RegExp(re[1], re[2].replace(/[^imsu]/g, "")).test(ctx.ref);
    } catch {
      return false;
    }
  }
  return name === ctx.ref;
}

/** A policy is satisfied when every clause it has is (lib/gitlab/ci/build/policy/*.rb). */
function policySatisfied(policy: Policy, vars: Record<string, string>, ctx: SeedContext): boolean {
  if (policy.refs && !policy.refs.some((r) => refMatches(r, ctx))) return false;
  if (policy.variables && !policy.variables.some((e) => evaluate(e, vars))) return false;
  if (policy.changes && ctx.changedPaths !== null && !anyPathMatches(policy.changes, ctx.changedPaths)) return false;
  return true;
}

/** Seeds every job of `config`; throws SeedError for needs on dropped jobs or an empty pipeline. */
export async function seedJobs(config: Config, ctx: SeedContext): Promise<SeededJob[]> {
  const seeded: SeededJob[] = [];
  for (const spec of config.jobs) {
    const jobVars = { ...inheritedVariables(spec, config.variables), ...spec.variables, ...(spec.matrixVariables ?? {}) };
    const evalVars = { ...ctx.variables, ...jobVars, ...ctx.apiVariables };
    if (spec.rules) {
      const rule = await matchRules(spec.rules, evalVars, ctx);
      if (!rule) continue;
      const when = rule.when ?? spec.when;
      seeded.push({
        spec,
        when,
        // Inside rules a manual job does not allow failure unless told so.
        allowFailure: rule.allowFailure ?? (spec.allowFailureSet ? spec.allowFailure : false),
        needs: rule.needs ?? spec.needs,
        variables: { ...jobVars, ...(rule.variables ?? {}) },
        startIn: rule.startIn ?? spec.startIn,
      });
      continue;
    }
    const only = spec.only ?? { refs: ["branches", "tags"] };
    if (!policySatisfied(only, evalVars, ctx)) continue;
    if (spec.except && policySatisfied(spec.except, evalVars, ctx)) continue;
    seeded.push({ spec, when: spec.when, allowFailure: spec.allowFailure, needs: spec.needs, variables: jobVars, startIn: spec.startIn });
  }
  const names = new Set(seeded.map((j) => j.spec.name));
  for (const job of seeded) {
    for (const need of job.needs ?? []) {
      if (names.has(need.name) || need.optional) continue;
      throw new SeedError(
        `'${job.spec.name}' job needs '${need.name}' job, but '${need.name}' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.`,
      );
    }
    if (job.needs) job.needs = job.needs.filter((n) => names.has(n.name));
  }
  if (seeded.length === 0) throw new SeedError("No stages / jobs for this pipeline.");
  return seeded;
}
