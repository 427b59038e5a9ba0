import type { Executor } from "../kernel/db";
import { isUniqueViolation, validation } from "../kernel/errors";
import * as q from "./queries";
import { variableErrors } from "../shared/ci/variable_rules";

/** What a create or update request sets (only the keys that were sent). */
export type VariableChanges = Partial<Omit<q.VariableValues, "description">> & { description?: string | null };

const DEFAULTS: q.VariableValues = { key: "", value: "", variableType: "env_var", protected: false, masked: false, raw: false, environmentScope: "*", description: null };

/**
 * Ci::ChangeVariableService create/update: validate the merged record as ActiveRecord does (every
 * validation reports, uniqueness included), then write. A racing writer that wins the unique index
 * gets the same uniqueness message, not a 500.
 */
export async function saveVariable(db: Executor, owner: q.Owner, existing: q.VariableRow | null, changes: VariableChanges): Promise<q.VariableRow> {
  const values: q.VariableValues = { ...DEFAULTS, ...(existing ?? {}), ...changes };
  const taken = await q.keyTaken(db, owner, values.key, values.environmentScope, existing?.id);
  const errors = variableErrors(
    { key: values.key, value: values.value, masked: values.masked, environmentScope: owner.kind === "instance" ? undefined : values.environmentScope },
    { taken, maxValue: owner.kind === "instance" ? 10_000 : undefined },
  );
  if (Object.keys(errors).length) throw validation(errors);
  try {
    return existing ? await q.updateVariable(db, owner, existing.id, values) : await q.insertVariable(db, owner, values);
  } catch (error) {
    if (isUniqueViolation(error, q.UNIQUE_INDEX[owner.kind])) throw validation({ key: [`(${values.key}) has already been taken`] });
    throw error;
  }
}
