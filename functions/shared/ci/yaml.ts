import { NAME as ENVIRONMENT_NAME, NAME_MESSAGE as ENVIRONMENT_NAME_MESSAGE, TIERS as ENVIRONMENT_TIERS } from "../environments/rules";
import { isPair, isScalar, parseDocument, Scalar, visit } from "yaml";
import { isValidExpression } from "./expression";

/**
 * `.gitlab-ci.yml` → normalised jobs (docs/ci.md, "Creating a pipeline", steps 3-4, "Keywords"). Messages follow lib/gitlab/ci/config/
 * and lib/gitlab/ci/yaml_processor.rb; keywords we do not build are refused with our own message
 * rather than ignored.
 */
export class ConfigError extends Error {}

export type Rule = {
  if?: string;
  changes?: string[];
  exists?: string[];
  when?: string;
  allowFailure?: boolean;
  variables?: Record<string, string>;
  startIn?: string;
  needs?: Need[];
};

export type Policy = { refs?: string[]; variables?: string[]; changes?: string[] };
export type Need = { name: string; artifacts: boolean; optional: boolean };

export type ArtifactsSpec = {
  name?: string;
  paths: string[];
  exclude: string[];
  untracked: boolean;
  when: "on_success" | "on_failure" | "always";
  expireIn?: string;
  reports: { junit: string[] };
};

export type JobSpec = {
  name: string;
  stage: string;
  script: string[];
  beforeScript: string[];
  afterScript: string[];
  when: string;
  allowFailure: boolean;
  /** `allow_failure` was written explicitly (rules may override the default). */
  allowFailureSet: boolean;
  allowFailureExitCodes: number[] | null;
  rules: Rule[] | null;
  only: Policy | null;
  except: Policy | null;
  needs: Need[] | null;
  dependencies: string[] | null;
  artifacts: ArtifactsSpec | null;
  variables: Record<string, string>;
  tags: string[];
  retry: { max: number; when: string[]; exitCodes: number[] } | null;
  timeout: number | null;
  coverage: string | null;
  image: unknown;
  services: unknown;
  cache: unknown;
  environment: EnvironmentSpec | null;
  interruptible: boolean | null;
  startIn: string | null;
  trigger: { include: string; strategy: string | null } | null;
  /** Set for instances of a `parallel` job: `{ index, total }`. */
  node: { index: number; total: number } | null;
  /** Variables of a `parallel: matrix` instance. */
  matrixVariables: Record<string, string> | null;
};

/** A job's `environment:` (lib/gitlab/ci/config/entry/environment.rb), before variable expansion. */
export type EnvironmentSpec = {
  name: string;
  url: string | null;
  action: "start" | "prepare" | "stop" | "verify" | "access";
  onStop: string | null;
  autoStopIn: string | null;
  deploymentTier: string | null;
};

export type Config = {
  stages: string[];
  variables: Record<string, string>;
  workflowRules: Rule[] | null;
  jobs: JobSpec[];
  /** What CI lint shows: the configuration after includes, `extends`, `!reference` and the edge stages. */
  expanded: Record<string, unknown>;
  /** The `include: local` locations read, nested ones included, in reading order. */
  includes: string[];
  /** Gitlab::Ci::Config warnings (jobs:<name> …), in job order. */
  warnings: string[];
};

/** Reads another file of the repository at the pipeline's sha (for `include: local`). */
export type LocalReader = (path: string) => Promise<string | null>;

const MAX_BYTES = 1024 * 1024;
const MAX_DEPTH = 100;
const MAX_JOBS = 500;
const MAX_NEEDS = 50;
const MAX_EXTENDS_DEPTH = 11;
const MAX_INCLUDES = 100;

const GLOBAL_KEYS = new Set(["stages", "types", "variables", "default", "before_script", "after_script", "image", "services", "cache", "workflow", "include"]);
const UNSUPPORTED_GLOBAL = new Set(["pages"]);
const DEFAULT_KEYS = new Set(["image", "services", "before_script", "after_script", "cache", "tags", "retry", "timeout", "interruptible", "artifacts", "hooks", "id_tokens"]);
const JOB_KEYS = new Set([
  "tags", "script", "run", "type", "image", "services", "start_in", "artifacts", "cache", "dependencies", "before_script",
  "after_script", "hooks", "coverage", "retry", "parallel", "interruptible", "timeout", "release", "dast_configuration",
  "secrets", "publish", "pages", "id_tokens", "environment", "when", "needs", "variables", "allow_failure", "only", "except",
  "rules", "extends", "inherit", "stage", "trigger", "resource_group", "identity", "manual_confirmation",
]);
/** Keywords GitLab has that this server does not build: refused, not ignored. */
const UNSUPPORTED_JOB_KEYS = new Set(["run", "hooks", "release", "dast_configuration", "secrets", "publish", "pages", "id_tokens", "resource_group", "identity", "manual_confirmation"]);
const WHEN = ["on_success", "on_failure", "always", "manual", "delayed"];
const DEFAULT_STAGES = ["build", "test", "deploy"];

type Hash = Record<string, unknown>;

/**
 * A `!reference [job, key, …]` tag as loaded, resolved once includes and `extends` are applied
 * (lib/gitlab/ci/config.rb#expand_config, lib/gitlab/ci/config/yaml/tags/reference.rb).
 */
class Reference {
  constructor(readonly path: unknown[]) {}
}

const isHash = (v: unknown): v is Hash => !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Reference);

/** Parses one YAML text to a plain object; syntax errors carry the `yaml` package's wording. */
export function loadYaml(text: string): unknown {
  if (text.length > MAX_BYTES) throw new ConfigError("The parsed YAML is too big");
  const doc = parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) throw new ConfigError(`(<unknown>): ${doc.errors[0].message.split("\n")[0]}`);
  // `yaml` keeps the unknown `!reference` tag on its node (with a warning): the node becomes a marker.
  visit(doc, (_key, node) => {
    // Psych loads a plain `:name` scalar as the Symbol :name, and GitLab symbolizes every key, so a
    // `:script:` key is `script` (python-gitlab's lint tests write their YAML that way).
    if (isPair(node) && isScalar(node.key) && node.key.type === "PLAIN" && typeof node.key.value === "string" && /^:./.test(node.key.value))
      node.key.value = node.key.value.slice(1);
    if (node && typeof node === "object" && "tag" in node && node.tag === "!reference" && "toJSON" in node) {
      const value = (node as { toJSON(): unknown }).toJSON();
      return new Scalar(new Reference(Array.isArray(value) ? value : [value]));
    }
  });
  const value = doc.toJS({ maxAliasCount: 1000 });
  if (depth(value) > MAX_DEPTH) throw new ConfigError("The parsed YAML is too deep");
  return value;
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_DEPTH) return level;
  if (Array.isArray(value)) return Math.max(level, ...value.map((v) => depth(v, level + 1)));
  if (isHash(value)) return Math.max(level, ...Object.values(value).map((v) => depth(v, level + 1)));
  return level;
}

/** Full pipeline configuration: parse, includes, default, extends, validation, normalisation. */
export async function parseConfig(text: string, readLocal: LocalReader): Promise<Config> {
  const root = loadYaml(text);
  if (!isHash(root)) throw new ConfigError("Invalid configuration format");
  const includes: string[] = [];
  const merged = await applyIncludes(root, readLocal, includes);
  return { ...normalize(merged), includes };
}

async function applyIncludes(root: Hash, readLocal: LocalReader, seen: string[]): Promise<Hash> {
  const include = root.include;
  if (include === undefined) return root;
  const items = Array.isArray(include) ? include : [include];
  let combined: Hash = {};
  let count = 0;
  for (const item of items) {
    let path: string;
    if (typeof item === "string") {
      if (/^https?:\/\//.test(item)) throw new ConfigError("include:remote is not supported by this server");
      path = item;
    } else if (isHash(item) && typeof item.local === "string") {
      path = item.local;
    } else if (isHash(item)) {
      const kind = Object.keys(item).find((k) => ["remote", "template", "project", "component", "file"].includes(k)) ?? Object.keys(item)[0];
      throw new ConfigError(`include:${kind} is not supported by this server`);
    } else {
      throw new ConfigError("Included file `` does not have valid YAML syntax!");
    }
    if (++count > MAX_INCLUDES) throw new ConfigError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
    seen.push(path);
    const clean = path.replace(/^\/+/, "");
    if (clean.includes("*")) throw new ConfigError("include:local with wildcards is not supported by this server");
    const body = await readLocal(clean);
    if (body === null) throw new ConfigError(`Local file \`${clean}\` does not exist!`);
    let loaded: unknown;
    try {
      loaded = loadYaml(body);
    } catch {
      throw new ConfigError(`Included file \`${clean}\` does not have valid YAML syntax!`);
    }
    if (!isHash(loaded)) throw new ConfigError(`Included file \`${clean}\` does not have valid YAML syntax!`);
    if (loaded.include !== undefined) loaded = await applyIncludes(loaded, readLocal, seen);
    const { include: _ignored, ...rest } = loaded as Hash;
    combined = deepMerge(combined, rest);
  }
  const { include: _own, ...own } = root;
  // The including file wins over what it includes (lib/gitlab/ci/config/external/processor.rb).
  return deepMerge(combined, own);
}

/** Deep merge of hashes; anything else (lists included) is replaced (Gitlab::Config::Extendable). */
export function deepMerge(base: Hash, over: Hash): Hash {
  const out: Hash = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isHash(out[key]) && isHash(value) ? deepMerge(out[key] as Hash, value) : value;
  }
  return out;
}

function resolveExtends(all: Hash): Hash {
  const resolved = new Map<string, Hash>();
  const resolve = (name: string, chain: string[]): Hash => {
    const done = resolved.get(name);
    if (done) return done;
    const entry = all[name];
    if (!isHash(entry)) throw new ConfigError(`${chain[0] ?? name}: invalid base hash in \`extends\``);
    if (entry.extends === undefined) {
      resolved.set(name, entry);
      return entry;
    }
    if (chain.includes(name)) throw new ConfigError(`${chain[0]}: circular dependency detected in \`extends\``);
    if (chain.length >= MAX_EXTENDS_DEPTH) throw new ConfigError(`${chain[0]}: nesting too deep in \`extends\``);
    const bases = Array.isArray(entry.extends) ? entry.extends : [entry.extends];
    if (!bases.every((b) => typeof b === "string")) throw new ConfigError(`jobs:${name}:extends should be an array of strings or a string`);
    const unknown = (bases as string[]).filter((b) => !isHash(all[b]));
    if (unknown.length) throw new ConfigError(`${name}: unknown keys in \`extends\` (${unknown.join(", ")})`);
    let merged: Hash = {};
    for (const base of bases as string[]) merged = deepMerge(merged, resolve(base, [...chain, name]));
    const { extends: _e, ...own } = entry;
    const result = deepMerge(merged, own);
    resolved.set(name, result);
    return result;
  };
  const out: Hash = {};
  for (const [name, value] of Object.entries(all)) out[name] = isHash(value) && value.extends !== undefined ? resolve(name, []) : value;
  return out;
}

function strings(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) {
      if (Array.isArray(item)) out.push(...strings(item, where));
      else if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") out.push(String(item));
      else throw new ConfigError(`${where} config should be a string or a nested array of strings up to 10 levels deep`);
    }
    return out;
  }
  throw new ConfigError(`${where} config should be a string or a nested array of strings up to 10 levels deep`);
}

function variablesOf(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isHash(value)) throw new ConfigError(`${where} config should be a hash of key value pairs, value can be a hash`);
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value)) {
    if (isHash(raw)) out[key] = raw.value === undefined || raw.value === null ? "" : String(raw.value);
    else if (raw === null) out[key] = "";
    else if (typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean") out[key] = String(raw);
    else throw new ConfigError(`${where} config should be a hash of key value pairs, value can be a hash`);
  }
  return out;
}

/** `1h 30m`, `2 hours`, `90 minutes`, `3600` → seconds (ChronicDuration, the forms CI files use). */
export function parseDuration(text: unknown): number | null {
  if (typeof text === "number") return Number.isFinite(text) && text >= 0 ? Math.floor(text) : null;
  if (typeof text !== "string") return null;
  const s = text.trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  const units: Record<string, number> = { s: 1, sec: 1, secs: 1, second: 1, seconds: 1, m: 60, min: 60, mins: 60, minute: 60, minutes: 60, h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600, d: 86400, day: 86400, days: 86400, w: 604800, wk: 604800, week: 604800, weeks: 604800, mo: 2592000, month: 2592000, months: 2592000, y: 31557600, yr: 31557600, year: 31557600, years: 31557600 };
  let total = 0;
  let matched = false;
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let rest = s.replace(/\band\b|,/g, " ");
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest))) {
    const unit = units[m[2]];
    if (unit === undefined) return null;
    total += Number(m[1]) * unit;
    matched = true;
  }
  rest = rest.replace(re, "").trim();
  if (!matched || rest !== "") return null;
  return Math.floor(total);
}

const ENVIRONMENT_KEYS = ["name", "url", "action", "on_stop", "auto_stop_in", "kubernetes", "deployment_tier"];
const ENVIRONMENT_ACTIONS = ["start", "prepare", "stop", "verify", "access"];

/** Entry::Environment: a name, or a hash of the allowed keys; `action` defaults to `start`. */
function environmentOf(value: unknown, where: string): EnvironmentSpec | null {
  if (value === undefined || value === null) return null;
  const at = `${where}:environment`;
  if (typeof value !== "string" && !isHash(value)) throw new ConfigError(`${at} config should be a hash or a string`);
  const env: Hash = typeof value === "string" ? { name: value } : value;
  const unknown = Object.keys(env).filter((k) => !ENVIRONMENT_KEYS.includes(k));
  if (unknown.length) throw new ConfigError(`${at} config contains unknown keys: ${unknown.join(", ")}`);
  if (env.kubernetes !== undefined) throw new ConfigError(`${at}:kubernetes is not supported by this server`);
  const name = env.name;
  if (name === undefined || name === null || name === "") throw new ConfigError(`${at} name can't be blank`);
  if (typeof name !== "string" || !ENVIRONMENT_NAME.test(name) || name.startsWith("/") || name.endsWith("/"))
    throw new ConfigError(`${at} name ${ENVIRONMENT_NAME_MESSAGE}`);
  if (env.url !== undefined && env.url !== null && typeof env.url !== "string") throw new ConfigError(`${at} url should be a string`);
  if (typeof env.url === "string" && [...env.url].length > 255) throw new ConfigError(`${at} url is too long (maximum is 255 characters)`);
  const action = env.action === undefined || env.action === null ? "start" : env.action;
  if (typeof action !== "string" || !ENVIRONMENT_ACTIONS.includes(action)) throw new ConfigError(`${at} action should be start, stop, prepare, verify, or access`);
  if (env.on_stop !== undefined && env.on_stop !== null && typeof env.on_stop !== "string") throw new ConfigError(`${at} on stop should be a string`);
  const autoStopIn = env.auto_stop_in === undefined || env.auto_stop_in === null ? null : String(env.auto_stop_in);
  if (autoStopIn !== null && parseDuration(autoStopIn) === null) throw new ConfigError(`${at} auto stop in should be a duration`);
  const tier = env.deployment_tier === undefined || env.deployment_tier === null ? null : env.deployment_tier;
  if (tier !== null && (typeof tier !== "string" || !(ENVIRONMENT_TIERS as readonly string[]).includes(tier)))
    throw new ConfigError(`${at} deployment tier must be one of ${ENVIRONMENT_TIERS.join(", ")}`);
  return {
    name,
    url: typeof env.url === "string" ? env.url : null,
    action: action as EnvironmentSpec["action"],
    onStop: typeof env.on_stop === "string" ? env.on_stop : null,
    autoStopIn,
    deploymentTier: tier as string | null,
  };
}

/** YamlProcessor#validate_on_stop_job!: `on_stop` names a job of the same environment with `action: stop`. */
function validateOnStop(job: JobSpec, jobs: JobSpec[]): void {
  const env = job.environment;
  if (!env?.onStop) return;
  const stop = jobs.find((j) => j.name === env.onStop);
  if (!stop) throw new ConfigError(`${job.name} job: on_stop job ${env.onStop} is not defined`);
  if (!stop.environment) throw new ConfigError(`${job.name} job: on_stop job ${env.onStop} does not have environment defined`);
  if (stop.environment.name !== env.name) throw new ConfigError(`${job.name} job: on_stop job ${env.onStop} have different environment name`);
  if (stop.environment.action !== "stop") throw new ConfigError(`${job.name} job: on_stop job ${env.onStop} needs to have action stop defined`);
}

function policyOf(value: unknown, where: string): Policy | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" || Array.isArray(value)) return { refs: strings(value, where) };
  if (!isHash(value)) throw new ConfigError(`${where} has to be either an array of conditions or a hash`);
  const unknown = Object.keys(value).filter((k) => !["refs", "variables", "changes", "kubernetes"].includes(k));
  if (unknown.length) throw new ConfigError(`${where} config contains unknown keys: ${unknown.join(", ")}`);
  const policy: Policy = {};
  if (value.refs !== undefined) policy.refs = strings(value.refs, `${where}:refs`);
  if (value.variables !== undefined) {
    policy.variables = strings(value.variables, `${where}:variables`);
    for (const expr of policy.variables)
      if (!isValidExpression(expr)) throw new ConfigError(`${where}:variables config should be an array of valid expressions`);
  }
  if (value.changes !== undefined) policy.changes = strings(isHash(value.changes) ? value.changes.paths : value.changes, `${where}:changes`);
  return policy;
}

function needsOf(value: unknown, where: string): Need[] {
  const list = Array.isArray(value) ? value : [value];
  const out: Need[] = [];
  for (const item of list) {
    if (typeof item === "string") out.push({ name: item, artifacts: true, optional: false });
    else if (isHash(item) && typeof item.job === "string")
      out.push({ name: item.job, artifacts: item.artifacts !== false, optional: item.optional === true });
    else if (isHash(item) && (item.pipeline !== undefined || item.project !== undefined))
      throw new ConfigError(`${where}:needs:pipeline is not supported by this server`);
    else throw new ConfigError(`${where}:needs config can only be a string or a hash`);
  }
  if (out.length > MAX_NEEDS) throw new ConfigError(`${where}:needs config has too many entries (maximum ${MAX_NEEDS})`);
  return out;
}

function rulesOf(value: unknown, where: string): Rule[] {
  if (!Array.isArray(value)) throw new ConfigError(`${where}:rules config should be an array of hashes`);
  // Nested lists (a `!reference` to another job's rules among rules) are flattened (Entry::Rules).
  return value.flat(10).map((raw, i) => {
    if (!isHash(raw)) throw new ConfigError(`${where}:rules:rule config should be a hash`);
    const at = `${where}:rules:rule`;
    const unknown = Object.keys(raw).filter((k) => !["if", "changes", "exists", "when", "start_in", "allow_failure", "variables", "needs"].includes(k));
    if (unknown.length) throw new ConfigError(`${at} config contains unknown keys: ${unknown.join(", ")}`);
    const rule: Rule = {};
    if (raw.if !== undefined) {
      if (typeof raw.if !== "string" || !isValidExpression(raw.if)) throw new ConfigError(`${at} if invalid expression syntax`);
      rule.if = raw.if;
    }
    if (raw.changes !== undefined) rule.changes = strings(isHash(raw.changes) ? raw.changes.paths : raw.changes, `${at}:changes`);
    if (raw.exists !== undefined) rule.exists = strings(isHash(raw.exists) ? raw.exists.paths : raw.exists, `${at}:exists`);
    if (raw.when !== undefined) {
      if (typeof raw.when !== "string" || ![...WHEN, "never"].includes(raw.when))
        throw new ConfigError(`${at} when unknown value: ${String(raw.when)}`);
      rule.when = raw.when;
    }
    if (raw.allow_failure !== undefined) {
      if (typeof raw.allow_failure !== "boolean") throw new ConfigError(`${at} allow_failure should be a boolean value`);
      rule.allowFailure = raw.allow_failure;
    }
    if (raw.variables !== undefined) rule.variables = variablesOf(raw.variables, `${at}:variables`);
    if (raw.start_in !== undefined) rule.startIn = String(raw.start_in);
    if (raw.needs !== undefined) rule.needs = needsOf(raw.needs, at);
    void i;
    return rule;
  });
}

function artifactsOf(value: unknown, where: string): ArtifactsSpec | null {
  if (value === undefined || value === null) return null;
  if (!isHash(value)) throw new ConfigError(`${where}:artifacts config should be a hash`);
  const known = ["name", "untracked", "paths", "reports", "when", "expire_in", "expose_as", "exclude", "public", "access"];
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length) throw new ConfigError(`${where}:artifacts config contains unknown keys: ${unknown.join(", ")}`);
  const when = value.when ?? "on_success";
  if (!["on_success", "on_failure", "always"].includes(String(when)))
    throw new ConfigError(`${where}:artifacts when should be on_success, on_failure or always`);
  const reports = isHash(value.reports) ? value.reports : {};
  const otherReports = Object.keys(reports).filter((k) => k !== "junit");
  if (otherReports.length) throw new ConfigError(`${where}:artifacts:reports:${otherReports[0]} is not supported by this server`);
  if (value.expire_in !== undefined && String(value.expire_in) !== "never" && parseDuration(value.expire_in) === null)
    throw new ConfigError(`${where}:artifacts expire in should be a duration`);
  return {
    name: value.name === undefined ? undefined : String(value.name),
    paths: strings(value.paths, `${where}:artifacts:paths`),
    exclude: strings(value.exclude, `${where}:artifacts:exclude`),
    untracked: value.untracked === true,
    when: when as ArtifactsSpec["when"],
    expireIn: value.expire_in === undefined ? undefined : String(value.expire_in),
    reports: { junit: strings(reports.junit, `${where}:artifacts:reports:junit`) },
  };
}

function retryOf(value: unknown, where: string): JobSpec["retry"] {
  if (value === undefined || value === null) return null;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 2) throw new ConfigError(`${where}:retry config must be a non negative integer less than or equal to 2`);
    return { max: value, when: ["always"], exitCodes: [] };
  }
  if (!isHash(value)) throw new ConfigError(`${where} retry config has to be either an integer or a hash`);
  const max = value.max === undefined ? 0 : Number(value.max);
  if (!Number.isInteger(max) || max < 0 || max > 2) throw new ConfigError(`${where}:retry max config must be a non negative integer less than or equal to 2`);
  const when = value.when === undefined ? ["always"] : strings(value.when, `${where}:retry:when`);
  const exitCodes = value.exit_codes === undefined ? [] : (Array.isArray(value.exit_codes) ? value.exit_codes : [value.exit_codes]).map(Number);
  return { max, when, exitCodes };
}

/** `parallel: N` → `name i/N`; `parallel: matrix` → `name: [v1, v2]` (lib/gitlab/ci/config/normalizer/). */
function expandParallel(name: string, value: unknown): { name: string; node: JobSpec["node"]; matrix: Record<string, string> | null }[] {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 1 || value > 200) throw new ConfigError(`jobs:${name}:parallel config must be greater than or equal to 1`);
    return Array.from({ length: value }, (_, i) => ({ name: `${name} ${i + 1}/${value}`, node: { index: i + 1, total: value }, matrix: null }));
  }
  if (isHash(value) && Array.isArray(value.matrix)) {
    const combos: Record<string, string>[] = [];
    for (const entry of value.matrix) {
      if (!isHash(entry)) throw new ConfigError(`jobs:${name}:parallel:matrix config should be an array of hashes`);
      let partial: Record<string, string>[] = [{}];
      for (const [key, raw] of Object.entries(entry)) {
        const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
        partial = partial.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
      }
      combos.push(...partial);
    }
    if (combos.length > 200) throw new ConfigError(`jobs:${name}:parallel:matrix config generates too many jobs (maximum is 200)`);
    return combos.map((vars, i) => ({ name: `${name}: [${Object.values(vars).join(", ")}]`, node: { index: i + 1, total: combos.length }, matrix: vars }));
  }
  throw new ConfigError(`jobs:${name}:parallel should be an integer or a hash`);
}

/** Ruby's `Array#inspect` of a reference's path, as GitLab's messages show it. */
const inspectPath = (path: unknown[]) => `[${path.map((p) => JSON.stringify(p)).join(", ")}]`;

/** Replaces every `!reference` by the configuration at its path (Gitlab::Ci::Config::Yaml::Tags::Resolver). */
function resolveReferences(root: Hash): Hash {
  const resolving = new Set<Reference>();
  const resolved = new Map<Reference, unknown>();
  const resolveOne = (ref: Reference): unknown => {
    if (resolved.has(ref)) return resolved.get(ref);
    if (ref.path.length === 0 || !ref.path.every((p) => typeof p === "string"))
      throw new ConfigError(`!reference ${inspectPath(ref.path)} is not valid`);
    if (resolving.has(ref)) throw new ConfigError(`!reference ${inspectPath(ref.path)} is part of a circular chain`);
    resolving.add(ref);
    let target: unknown = root;
    for (const key of ref.path as string[]) target = isHash(target) ? target[key] : undefined;
    const value = walk(target);
    if (value === undefined || value === null || value === false)
      throw new ConfigError(`!reference ${inspectPath(ref.path)} could not be found`);
    resolving.delete(ref);
    resolved.set(ref, value);
    return value;
  };
  const walk = (value: unknown): unknown => {
    if (value instanceof Reference) return resolveOne(value);
    if (Array.isArray(value)) return value.map(walk);
    if (isHash(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(root) as Hash;
}

function normalize(raw: Hash): Omit<Config, "includes"> {
  for (const key of Object.keys(raw)) if (UNSUPPORTED_GLOBAL.has(key) && !isHash(raw[key])) throw new ConfigError(`${key} is not supported by this server`);
  const all = resolveReferences(resolveExtends(raw));
  const declaredStages = all.stages ?? all.types;
  const stages = [".pre", ...(declaredStages === undefined ? DEFAULT_STAGES : strings(declaredStages, "stages")).filter((s) => s !== ".pre" && s !== ".post"), ".post"];
  const variables = variablesOf(all.variables, "variables");
  const def = isHash(all.default) ? all.default : {};
  if (all.default !== undefined && !isHash(all.default)) throw new ConfigError("default config should be a hash");
  const unknownDefault = Object.keys(def).filter((k) => !DEFAULT_KEYS.has(k));
  if (unknownDefault.length) throw new ConfigError(`default config contains unknown keys: ${unknownDefault.join(", ")}`);
  // Root-level image, services, before_script, after_script and cache are the old spelling of default.
  const defaults: Hash = { ...def };
  for (const key of ["image", "services", "before_script", "after_script", "cache"]) if (all[key] !== undefined && defaults[key] === undefined) defaults[key] = all[key];

  let workflowRules: Rule[] | null = null;
  if (all.workflow !== undefined) {
    if (!isHash(all.workflow)) throw new ConfigError("workflow config should be a hash");
    const unknown = Object.keys(all.workflow).filter((k) => k !== "rules" && k !== "name");
    if (unknown.length) throw new ConfigError(`workflow config contains unknown keys: ${unknown.join(", ")}`);
    if (all.workflow.rules !== undefined) workflowRules = rulesOf(all.workflow.rules, "workflow");
  }

  const jobNames = Object.keys(all).filter((k) => !GLOBAL_KEYS.has(k));
  const visible = jobNames.filter((k) => !k.startsWith("."));
  if (visible.length === 0) throw new ConfigError("jobs config should contain at least one visible job");
  const jobs: JobSpec[] = [];
  for (const name of visible) jobs.push(...normalizeJob(name, all[name], defaults, stages));
  if (jobs.length > MAX_JOBS) throw new ConfigError(`The pipeline size limit of ${MAX_JOBS} jobs has been exceeded`);

  // needs and dependencies refer to jobs of the configuration (names of parallel jobs expand).
  const byBase = new Map<string, string[]>();
  for (const job of jobs) {
    const base = job.node ? job.name.replace(/( \d+\/\d+|: \[.*\])$/, "") : job.name;
    byBase.set(base, [...(byBase.get(base) ?? []), job.name]);
  }
  const names = new Set(jobs.map((j) => j.name));
  for (const job of jobs) {
    if (job.needs) job.needs = expandNeeds(job.needs, byBase);
    if (job.rules) for (const rule of job.rules) if (rule.needs) rule.needs = expandNeeds(rule.needs, byBase);
    if (job.dependencies) job.dependencies = job.dependencies.flatMap((d) => byBase.get(d) ?? [d]);
    validateOnStop(job, jobs);
    const stageIndex = stages.indexOf(job.stage);
    for (const dep of job.dependencies ?? []) {
      const other = jobs.find((j) => j.name === dep);
      if (!names.has(dep)) throw new ConfigError(`${job.name} job: undefined dependency: ${dep}`);
      if (!job.needs && other && stages.indexOf(other.stage) >= stageIndex)
        throw new ConfigError(`${job.name} job: dependency ${dep} is not defined in current or prior stages`);
      if (job.needs && !job.needs.some((n) => n.name === dep))
        throw new ConfigError(`jobs:${job.name} dependencies the ${dep} should be part of needs`);
    }
    for (const need of job.needs ?? []) {
      const other = jobs.find((j) => j.name === need.name);
      if (!other) {
        if (!need.optional) throw new ConfigError(`${job.name} job: undefined need: ${need.name}`);
        continue;
      }
      if (stages.indexOf(other.stage) > stageIndex)
        throw new ConfigError(`${job.name} job: need ${need.name} is not defined in current or prior stages`);
    }
  }
  // Config::EdgeStagesInjector: declared stages gain `.pre` and `.post` in what lint shows.
  const expanded: Hash = { ...all };
  for (const key of ["stages", "types"]) if (Array.isArray(expanded[key])) expanded[key] = stages;
  return { stages, variables, workflowRules, jobs, expanded, warnings: workflowRules ? [] : ruleWarnings(visible, all) };
}

/**
 * Entry::Processable#validate_against_warnings, without `workflow:rules` only: a job whose last rule
 * is a bare `when` other than `never` may run in both a branch and a merge request pipeline.
 */
function ruleWarnings(names: string[], all: Hash): string[] {
  const warnings: string[] = [];
  for (const name of names) {
    const rules = (all[name] as Hash).rules;
    const last = Array.isArray(rules) ? rules[rules.length - 1] : undefined;
    if (isHash(last) && Object.keys(last).length === 1 && last.when !== undefined && last.when !== "never")
      warnings.push(`jobs:${name} may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings`);
  }
  return warnings;
}

function expandNeeds(needs: Need[], byBase: Map<string, string[]>): Need[] {
  return needs.flatMap((n) => (byBase.get(n.name) ?? [n.name]).map((name) => ({ ...n, name })));
}

function normalizeJob(name: string, value: unknown, defaults: Hash, stages: string[]): JobSpec[] {
  const where = `jobs:${name}`;
  if (!isHash(value)) throw new ConfigError(`${where} config should be a hash`);
  const unknown = Object.keys(value).filter((k) => !JOB_KEYS.has(k));
  if (unknown.length) throw new ConfigError(`${where} config contains unknown keys: ${unknown.join(", ")}`);
  for (const key of Object.keys(value)) if (UNSUPPORTED_JOB_KEYS.has(key)) throw new ConfigError(`${where}:${key} is not supported by this server`);
  if (value.script === undefined && value.trigger === undefined)
    throw new ConfigError(`jobs ${name} config should implement the script:, run:, or trigger: keyword`);
  if (value.only !== undefined && value.rules !== undefined) throw new ConfigError(`${where} config key may not be used with \`rules\`: only`);
  if (value.except !== undefined && value.rules !== undefined) throw new ConfigError(`${where} config key may not be used with \`rules\`: except`);

  // inherit: default (true, false or a list of keys); inherit: variables is applied by the seeder.
  const inherit = isHash(value.inherit) ? value.inherit : {};
  const inheritDefault = inherit.default;
  const job: Hash = {};
  for (const key of Object.keys(defaults)) {
    const take = inheritDefault === undefined || inheritDefault === true || (Array.isArray(inheritDefault) && inheritDefault.includes(key));
    if (take) job[key] = defaults[key];
  }
  Object.assign(job, value);

  const stage = job.stage === undefined ? (job.type === undefined ? "test" : String(job.type)) : String(job.stage);
  if (!stages.includes(stage))
    throw new ConfigError(`${name} job: chosen stage does not exist; available stages are ${stages.join(", ")}`);
  const when = job.when === undefined ? "on_success" : String(job.when);
  if (!WHEN.includes(when)) throw new ConfigError(`${where} when should be one of: ${WHEN.join(", ")}`);
  if (when === "delayed" && job.start_in === undefined) throw new ConfigError(`${where} start in should be a duration`);
  const startIn = job.start_in === undefined ? null : String(job.start_in);
  if (startIn !== null) {
    const seconds = parseDuration(startIn);
    if (seconds === null || seconds > 7 * 86400) throw new ConfigError(`${where} start in should be a duration`);
  }

  let allowFailure = when === "manual";
  let allowFailureSet = false;
  let exitCodes: number[] | null = null;
  if (job.allow_failure !== undefined) {
    allowFailureSet = true;
    if (typeof job.allow_failure === "boolean") allowFailure = job.allow_failure;
    else if (isHash(job.allow_failure) && job.allow_failure.exit_codes !== undefined) {
      const codes = job.allow_failure.exit_codes;
      exitCodes = (Array.isArray(codes) ? codes : [codes]).map(Number);
      allowFailure = false;
    } else throw new ConfigError(`${where} allow_failure should be a hash or a boolean value`);
  }

  let trigger: JobSpec["trigger"] = null;
  if (job.trigger !== undefined) {
    const t = job.trigger;
    if (typeof t === "string" || (isHash(t) && t.project !== undefined)) throw new ConfigError(`${where}:trigger:project is not supported by this server`);
    if (!isHash(t) || t.include === undefined) throw new ConfigError(`${where} trigger config should be a hash`);
    const inc = Array.isArray(t.include) ? t.include : [t.include];
    if (inc.length !== 1) throw new ConfigError(`${where}:trigger:include with several files is not supported by this server`);
    const first = inc[0];
    const path = typeof first === "string" ? first : isHash(first) && typeof first.local === "string" ? first.local : null;
    if (path === null) throw new ConfigError(`${where}:trigger:include:${isHash(first) ? Object.keys(first)[0] : "file"} is not supported by this server`);
    trigger = { include: path.replace(/^\/+/, ""), strategy: t.strategy === undefined ? null : String(t.strategy) };
  }

  const timeout = job.timeout === undefined ? null : parseDuration(job.timeout);
  if (job.timeout !== undefined && timeout === null) throw new ConfigError(`${where} timeout should be a duration`);
  const tags = strings(job.tags, `${where}:tags`);
  let coverage: string | null = null;
  if (job.coverage !== undefined) {
    const m = typeof job.coverage === "string" ? /^\/(.*)\/$/s.exec(job.coverage) : null;
    if (!m) throw new ConfigError(`${where}:coverage config must be a regular expression`);
    coverage = m[1];
  }
  const needs = job.needs === undefined ? null : needsOf(job.needs, where);
  const dependencies = job.dependencies === undefined ? null : strings(job.dependencies, `${where}:dependencies`);

  const base: Omit<JobSpec, "name" | "node" | "matrixVariables"> = {
    stage,
    script: strings(job.script, `${where}:script`),
    beforeScript: strings(job.before_script, `${where}:before_script`),
    afterScript: strings(job.after_script, `${where}:after_script`),
    when,
    allowFailure,
    allowFailureSet,
    allowFailureExitCodes: exitCodes,
    rules: job.rules === undefined ? null : rulesOf(job.rules, where),
    only: policyOf(job.only, `${where}:only`),
    except: policyOf(job.except, `${where}:except`),
    needs,
    dependencies,
    artifacts: artifactsOf(job.artifacts, where),
    variables: variablesOf(job.variables, `${where}:variables`),
    tags,
    retry: retryOf(job.retry, where),
    timeout,
    coverage,
    image: job.image ?? null,
    services: job.services ?? null,
    cache: job.cache ?? null,
    environment: environmentOf(job.environment, where),
    interruptible: typeof job.interruptible === "boolean" ? job.interruptible : null,
    startIn,
    trigger,
  };
  if (inherit.variables === false) (base as { inheritVariables?: unknown }).inheritVariables = false;
  else if (Array.isArray(inherit.variables)) (base as { inheritVariables?: unknown }).inheritVariables = inherit.variables.map(String);
  if (job.parallel === undefined) return [{ ...base, name, node: null, matrixVariables: null }];
  return expandParallel(name, job.parallel).map((p) => ({ ...base, name: p.name, node: p.node, matrixVariables: p.matrix }));
}

/** For `inherit: variables` (stored on the spec by normalizeJob). */
export function inheritedVariables(job: JobSpec, root: Record<string, string>): Record<string, string> {
  const inherit = (job as { inheritVariables?: false | string[] }).inheritVariables;
  if (inherit === false) return {};
  if (Array.isArray(inherit)) return Object.fromEntries(Object.entries(root).filter(([k]) => inherit.includes(k)));
  return root;
}

