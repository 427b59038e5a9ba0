/**
 * Validations of CI/CD variables, with ActiveModel's messages (app/models/concerns/ci/has_variable.rb,
 * ci/maskable.rb, ci/has_environment_scope.rb, app/models/ci/instance_variable.rb).
 */
export type VariableFields = { key: string; value: string; masked: boolean; environmentScope?: string };

/** Ci::Maskable::REGEX (15.x): one line, at least 8 characters of the Base64 alphabet plus `@:.~`. */
export const MASKABLE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
const KEY = /^[a-zA-Z0-9_]+$/;
/** Gitlab::Regex.environment_scope_regex. */
const SCOPE = /^[a-zA-Z0-9_/${}. \-*]+$/;

export function variableErrors(v: VariableFields, opts: { taken: boolean; maxValue?: number }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (attr: string, text: string) => (errors[attr] ??= []).push(text);
  if (v.key.trim() === "") add("key", "can't be blank");
  if (v.key.length > 255) add("key", "is too long (maximum is 255 characters)");
  if (!KEY.test(v.key)) add("key", "can contain only letters, digits and '_'.");
  if (v.masked && !MASKABLE.test(v.value)) add("value", "is invalid");
  if (v.environmentScope !== undefined) {
    if (v.environmentScope.trim() === "") add("environment_scope", "can't be blank");
    if (!SCOPE.test(v.environmentScope)) add("environment_scope", "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces");
  }
  // Ci::InstanceVariable: `validates :value, length: { maximum: 10_000, too_long: ... }`.
  if (opts.maxValue !== undefined && v.value.length > opts.maxValue) add("value", `The value of the provided variable exceeds the ${opts.maxValue} character limit`);
  if (opts.taken) add("key", `(${v.key}) has already been taken`);
  return errors;
}

/** Environment scope matching (`Ci::HasEnvironmentScope`): `*` matches any run of characters. */
export function scopeMatches(scope: string, environment: string | null): boolean {
  if (scope === "*") return true;
  if (environment === null) return false;
  if (!scope.includes("*")) return scope === environment;
  const pattern = scope.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${pattern}$`).test(environment);
}
