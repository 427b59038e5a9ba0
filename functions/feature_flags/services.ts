import { apiError, recordNotFound } from "../kernel/errors";
import type { FeatureFlagRow } from "../entities/feature_flags";
import type { FlagChanges, NewLegacyScope, NewStrategy } from "./queries";
import { canonicalStrategyName, environmentScopeErrors, flagErrors, strategyErrors } from "../shared/feature_flags/rules";

/**
 * The nested-attribute planning of FeatureFlags::CreateService and UpdateService: turns the request's
 * strategies (and legacy scopes) into rows to write, collecting the model's full validation messages.
 */

export type StrategyInput = {
  id?: number;
  name?: string;
  parameters?: unknown;
  user_list_id?: number;
  _destroy?: boolean;
  scopes?: { id?: number; environment_scope?: string; _destroy?: boolean }[];
};
export type LegacyScopeInput = { environment_scope: string; active: boolean; strategies: unknown };

const strip = (s: string) => s.trim();
const asParameters = (v: unknown) => (v ?? {}) as Record<string, unknown>;

function strategyMessages(s: { name: string; parameters: unknown; userListId: number | null }, scopes: string[]): string[] {
  return [
    ...strategyErrors({ name: s.name, parameters: s.parameters, hasUserList: s.userListId !== null }),
    ...scopes.flatMap((scope) => environmentScopeErrors(scope).map((m) => `scopes ${m}`)),
  ].map((m) => `Strategies ${m}`);
}

/** Ruby's `full_messages.uniq`-like: the first occurrence of each message, in order. */
const unique = (messages: string[]) => [...new Set(messages)];

/** 400 with the model's full messages (`render_api_error!(errors.full_messages, 400)`). */
export function failIf(messages: string[]): void {
  if (messages.length) throw apiError(unique(messages), 400);
}

export function planNewStrategies(inputs: StrategyInput[]): { strategies: NewStrategy[]; errors: string[] } {
  const strategies: NewStrategy[] = [];
  const errors: string[] = [];
  for (const input of inputs) {
    if (input._destroy) continue; // a new record marked for destruction is skipped
    const s: NewStrategy = {
      name: canonicalStrategyName(input.name ?? ""),
      parameters: asParameters(input.parameters),
      userListId: input.user_list_id ?? null,
      scopes: (input.scopes ?? []).filter((sc) => !sc._destroy).map((sc) => strip(sc.environment_scope ?? "")),
    };
    errors.push(...strategyMessages(s, s.scopes));
    strategies.push(s);
  }
  return { strategies, errors };
}

/** Legacy flags (version 1): the default scope `*` first; without scopes one is built from `active`. */
export function planLegacyScopes(inputs: LegacyScopeInput[] | undefined, active: boolean): { scopes: NewLegacyScope[]; errors: string[] } {
  if (!inputs || inputs.length === 0)
    return { scopes: [{ environmentScope: "*", active, strategies: [{ name: "default", parameters: {} }] }], errors: [] };
  const errors: string[] = [];
  const scopes = inputs.map((i) => ({ environmentScope: strip(i.environment_scope), active: i.active, strategies: i.strategies }));
  if (scopes[0].environmentScope !== "*") errors.push("Default scope has to be the first element");
  const seen = new Set<string>();
  for (const scope of scopes) {
    errors.push(...environmentScopeErrors(scope.environmentScope).map((m) => `Scopes ${m}`));
    if (seen.has(scope.environmentScope)) errors.push("Scopes environment scope has already been taken");
    seen.add(scope.environmentScope);
    const list = Array.isArray(scope.strategies) ? scope.strategies : null;
    const valid =
      list !== null &&
      list.every((s) => {
        const st = s as { name?: unknown; parameters?: unknown };
        const name = typeof st?.name === "string" ? st.name : "";
        return name !== "svcUserList" && strategyErrors({ name, parameters: st.parameters ?? {}, hasUserList: false }).length === 0;
      });
    if (!valid) errors.push("Scopes strategies are invalid");
  }
  return { scopes, errors };
}

/** Validation of a flag's own attributes. */
export function flagMessages(flag: { name: string; description: string | null }): string[] {
  return flagErrors(flag);
}

/**
 * `feature_flag.assign_attributes(strategies_attributes: …)` against the loaded flag: strategies and
 * scopes with `id` are updated or (`_destroy`) removed, those without are added. An `id` that is not
 * the flag's is ActiveRecord::RecordNotFound (404).
 */
export function planStrategyChanges(flag: FeatureFlagRow, inputs: StrategyInput[]): { changes: Omit<FlagChanges, "name" | "description" | "active">; errors: string[] } {
  const changes: Omit<FlagChanges, "name" | "description" | "active"> = {
    destroyStrategyIds: [],
    updateStrategies: [],
    destroyScopeIds: [],
    updateScopes: [],
    addScopes: [],
    newStrategies: [],
  };
  const errors: string[] = [];
  const fresh: StrategyInput[] = [];
  for (const input of inputs) {
    if (input.id === undefined) {
      fresh.push(input);
      continue;
    }
    const existing = flag.strategies.find((s) => s.id === input.id);
    if (!existing) throw recordNotFound();
    if (input._destroy) {
      changes.destroyStrategyIds.push(existing.id);
      continue;
    }
    const name = input.name !== undefined ? canonicalStrategyName(input.name) : existing.name;
    // UpdateService: leaving the user-list strategy drops its list.
    const userListId = input.user_list_id !== undefined ? input.user_list_id : name !== existing.name && existing.name === "svcUserList" ? null : (existing.userList?.id ?? null);
    const parameters = input.parameters !== undefined ? asParameters(input.parameters) : existing.parameters;
    changes.updateStrategies.push({ id: existing.id, name, parameters, userListId });
    const scopes = new Map(existing.scopes.map((sc) => [sc.id, sc.environmentScope]));
    for (const sc of input.scopes ?? []) {
      if (sc.id === undefined) {
        if (sc._destroy) continue;
        const environmentScope = strip(sc.environment_scope ?? "");
        changes.addScopes.push({ strategyId: existing.id, environmentScope });
        scopes.set(-changes.addScopes.length, environmentScope);
        continue;
      }
      if (!scopes.has(sc.id) || sc.id < 0) throw recordNotFound();
      if (sc._destroy) {
        changes.destroyScopeIds.push(sc.id);
        scopes.delete(sc.id);
      } else if (sc.environment_scope !== undefined) {
        changes.updateScopes.push({ id: sc.id, environmentScope: strip(sc.environment_scope) });
        scopes.set(sc.id, strip(sc.environment_scope));
      }
    }
    errors.push(...strategyMessages({ name, parameters, userListId }, [...scopes.values()]));
  }
  const planned = planNewStrategies(fresh);
  changes.newStrategies = planned.strategies;
  errors.push(...planned.errors);
  return { changes, errors };
}

/** Every user list a request names (`user_list_id` of its strategies). */
export function userListIds(inputs: StrategyInput[] | undefined): number[] {
  return [...new Set((inputs ?? []).filter((s) => s.user_list_id !== undefined && !s._destroy).map((s) => s.user_list_id!))];
}
