/**
 * Validations of feature flags, strategies and scopes as GitLab's models state them
 * (app/models/operations/feature_flag.rb, feature_flags/strategy.rb, concerns/has_environment_scope.rb,
 * validators/feature_flag_user_xids_validator.rb). Messages are ActiveModel full messages, as the API
 * renders them (`render_api_error!(errors.full_messages, 400)`).
 */

import { USER_LIST_STRATEGY } from "../../entities/unleash";

const USER_LIST_ALIASES = new Set([USER_LIST_STRATEGY, "gitlabUserList"]);

const STRATEGY_KEYS: Record<string, string[]> = {
  default: [],
  [USER_LIST_STRATEGY]: [],
  gradualRolloutUserId: ["groupId", "percentage"],
  flexibleRollout: ["groupId", "rollout", "stickiness"],
  userWithId: ["userIds"],
};
const STICKINESS = ["default", "userId", "sessionId", "random"];
const USER_XID_MAX_LENGTH = 256;

/** `gitlabUserList` → `svcUserList`; other names unchanged. */
export function canonicalStrategyName(name: string): string {
  return USER_LIST_ALIASES.has(name) ? USER_LIST_STRATEGY : name;
}

export const FLAG_NAME = /^[a-z]([-_a-z0-9]*[a-z0-9])?$/;
const FLAG_NAME_MESSAGE = "can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'";
const ENVIRONMENT_SCOPE = /^[a-zA-Z0-9_/${}. \-*]+$/;
const ENVIRONMENT_SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";

export function flagErrors(flag: { name: string; description: string | null }): string[] {
  const errors: string[] = [];
  const name = flag.name;
  if (name.trim() === "") errors.push("Name can't be blank");
  if ([...name].length < 2) errors.push("Name is too short (minimum is 2 characters)");
  else if ([...name].length > 63) errors.push("Name is too long (maximum is 63 characters)");
  if (!FLAG_NAME.test(name)) errors.push(`Name ${FLAG_NAME_MESSAGE}`);
  if (flag.description && [...flag.description].length > 255) errors.push("Description is too long (maximum is 255 characters)");
  return errors;
}

/** `FeatureFlagUserXidsValidator`: unique, comma separated, no blanks or surrounding spaces, ≤ 256 each. */
export function validUserXids(value: unknown): boolean {
  if (typeof value !== "string" || /[\n\r\t]|,,/.test(value)) return false;
  const xids = value.split(",");
  while (xids.length && xids[xids.length - 1] === "") xids.pop(); // Ruby's `split` drops trailing empties
  if (new Set(xids).size !== xids.length) return false;
  return xids.every((x) => x.trim() !== "" && x.trim() === x && x.length <= USER_XID_MAX_LENGTH);
}

export const userXidsMessage = (attribute: string) =>
  `${attribute} must be a string of unique comma separated values each ${USER_XID_MAX_LENGTH} characters or less`;

const inRange = (v: unknown) => typeof v === "string" && /^\d+$/.test(v) && Number(v) >= 0 && Number(v) <= 100;
const validGroupId = (v: unknown) => typeof v === "string" && /^[a-z]{1,32}$/.test(v);

/** `Strategy#parameters_validations` and the name check; messages without the "Strategies " prefix. */
export function strategyErrors(s: { name: string; parameters: unknown; hasUserList: boolean }): string[] {
  const expected = STRATEGY_KEYS[s.name];
  if (!expected) return ["name strategy name is invalid"];
  const errors: string[] = [];
  const params = s.parameters;
  if (!params || typeof params !== "object" || Array.isArray(params)) errors.push("parameters parameters are invalid");
  else {
    const p = params as Record<string, unknown>;
    const actual = Object.keys(p).sort();
    if (actual.join(",") !== [...expected].sort().join(",")) errors.push("parameters parameters are invalid");
    else if (s.name === "gradualRolloutUserId") {
      if (!inRange(p.percentage)) errors.push("parameters percentage must be a string between 0 and 100 inclusive");
      if (!validGroupId(p.groupId)) errors.push("parameters groupId parameter is invalid");
    } else if (s.name === "flexibleRollout") {
      if (!STICKINESS.includes(p.stickiness as string)) errors.push("parameters stickiness parameter must be default, userId, sessionId, or random");
      if (!validGroupId(p.groupId)) errors.push("parameters groupId parameter is invalid");
      if (!inRange(p.rollout)) errors.push("parameters rollout must be a string between 0 and 100 inclusive");
    } else if (s.name === "userWithId" && !validUserXids(p.userIds)) errors.push(`parameters ${userXidsMessage("userIds")}`);
  }
  if (s.name === USER_LIST_STRATEGY && !s.hasUserList) errors.push("user list can't be blank");
  if (s.name !== USER_LIST_STRATEGY && s.hasUserList) errors.push("user list must be blank");
  return errors;
}

/** `HasEnvironmentScope`: present, and only the allowed characters (after `strip`). */
export function environmentScopeErrors(scope: string): string[] {
  if (scope === "") return ["environment scope can't be blank", `environment scope ${ENVIRONMENT_SCOPE_MESSAGE}`];
  return ENVIRONMENT_SCOPE.test(scope) ? [] : [`environment scope ${ENVIRONMENT_SCOPE_MESSAGE}`];
}

/**
 * `Scope.on_environment`: `*`, the exact name, or a glob where `*` matches anything (other characters,
 * `%` and `_` included, are literal). Returns the relevance (0 wildcard, 1 glob, 2 exact) or -1.
 */
export function scopeRelevance(scope: string, environment: string): number {
  if (scope === "*") return 0;
  if (scope === environment) return 2;
  const pattern = new RegExp(`^${scope.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
  return pattern.test(environment) ? 1 : -1;
}
