import * as z from "zod";
import { conflict } from "../../kernel/errors";
import { p } from "../../kernel/params";
import type { VariableRow } from "../queries";
import type { VariableChanges } from "../services";

/** Parameters shared by the three variable APIs (lib/api/ci/variables.rb, group_variables.rb, admin/ci/variables.rb). */
const fields = {
  protected: p.bool().optional(),
  masked: p.bool().optional(),
  raw: p.bool().optional(),
  variable_type: p.oneOf("env_var", "file").optional(),
  description: p.string().optional(),
};

export const CreateVariable = z.object({ key: p.string(), value: p.string(), ...fields, environment_scope: p.string().optional() });
export const CreateInstanceVariable = z.object({ key: p.string(), value: p.string(), ...fields });
export const UpdateVariable = z.object({ value: p.string().optional(), ...fields, environment_scope: p.string().optional(), filter: p.hash().optional() });
export const UpdateInstanceVariable = z.object({ value: p.string().optional(), ...fields });
export const FilterParams = z.object({ filter: p.hash().optional() });

type Sent = { key?: string; value?: string; protected?: boolean; masked?: boolean; raw?: boolean; variable_type?: string; description?: string; environment_scope?: string };

/** The sent parameters as a change set. */
export function changesOf(params: Sent): VariableChanges {
  const changes: VariableChanges = {};
  if (params.key !== undefined) changes.key = params.key;
  if (params.value !== undefined) changes.value = params.value;
  if (params.protected !== undefined) changes.protected = params.protected;
  if (params.masked !== undefined) changes.masked = params.masked;
  if (params.raw !== undefined) changes.raw = params.raw;
  if (params.variable_type !== undefined) changes.variableType = params.variable_type;
  if (params.description !== undefined) changes.description = params.description;
  if (params.environment_scope !== undefined) changes.environmentScope = params.environment_scope;
  return changes;
}

/** `filter[environment_scope]`, when sent. */
export function scopeFilter(params: { filter?: Record<string, unknown> }): string | undefined {
  const scope = params.filter?.environment_scope;
  return scope === undefined || scope === null ? undefined : String(scope);
}

/** API::Helpers::VariablesHelpers#find_variable: one match, none, or 409 when the key is ambiguous. */
export function oneVariable(rows: VariableRow[]): VariableRow | null {
  if (rows.length > 1) throw conflict("There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
  return rows[0] ?? null;
}
