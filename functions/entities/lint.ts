import * as z from "zod";

const LintJob = z
  .object({
    name: z.string(),
    stage: z.string(),
    before_script: z.array(z.string()),
    script: z.array(z.string()),
    after_script: z.array(z.string()),
    tag_list: z.array(z.string()),
    environment: z.string().nullable(),
    when: z.string(),
    allow_failure: z.boolean(),
    only: z.record(z.string(), z.array(z.string())).nullable().optional(),
    except: z.record(z.string(), z.array(z.string())).nullable().optional(),
  })
  .meta({ id: "CiLintJob" });

const Include = z.object({
  context_project: z.string().nullable(),
  context_sha: z.string().nullable(),
  type: z.literal("local"),
  location: z.string(),
  blob: z.string().nullable(),
  raw: z.string().nullable(),
  extra: z.record(z.string(), z.never()),
});

/** API::Entities::Ci::Lint::Result (lib/api/entities/ci/lint/result.rb); `jobs` only when asked. */
export const LintResult = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.string()),
    warnings: z.array(z.string()),
    merged_yaml: z.string().nullable(),
    includes: z.array(Include).nullable(),
    jobs: z.array(LintJob).optional(),
  })
  .meta({ id: "CiLintResult" });

/** What Gitlab::Ci::Lint::Result holds, as the lint services build it. */
export type LintJobRow = z.output<typeof LintJob>;
export type IncludeRow = z.output<typeof Include>;
export type LintRow = { valid: boolean; errors: string[]; warnings: string[]; merged_yaml: string | null; includes: IncludeRow[] | null; jobs: LintJobRow[] };

export function lintResult(r: LintRow, ctx: { includeJobs?: boolean }): z.output<typeof LintResult> {
  return { valid: r.valid, errors: r.errors, warnings: r.warnings, merged_yaml: r.merged_yaml, includes: r.includes, ...(ctx.includeJobs ? { jobs: r.jobs } : {}) };
}

/**
 * `POST /ci/lint` (lib/api/lint.rb): the same result with `status` appended, and `merged_yaml` only
 * with `include_merged_yaml`.
 */
export const GlobalLintResult = LintResult.omit({ merged_yaml: true })
  .extend({ merged_yaml: z.string().nullable().optional(), status: z.enum(["valid", "invalid"]) })
  .meta({ id: "CiGlobalLintResult" });

export function globalLintResult(r: LintRow, ctx: { includeJobs?: boolean; includeMergedYaml?: boolean }): z.output<typeof GlobalLintResult> {
  return {
    valid: r.valid,
    errors: r.errors,
    warnings: r.warnings,
    ...(ctx.includeMergedYaml ? { merged_yaml: r.merged_yaml } : {}),
    includes: r.includes,
    ...(ctx.includeJobs ? { jobs: r.jobs } : {}),
    status: r.valid ? "valid" : "invalid",
  };
}
