import * as z from "zod";

/** A CI variable of a project, a group or the instance (the instance's scope reads `*`). */
export type VariableRow = {
  id: number;
  key: string;
  value: string;
  variableType: string;
  protected: boolean;
  masked: boolean;
  raw: boolean;
  environmentScope: string;
  description: string | null;
};

/**
 * API::Entities::Ci::Variable. `environment_scope` is shown for project and group variables only
 * (GitLab exposes it for `Ci::Variable` and `Ci::GroupVariable`). `raw` and `description` are keys of
 * later GitLab releases (15.6, 16.2) than the 15.4 we answer as; clients ignore unknown keys.
 */
export const Variable = z
  .object({
    variable_type: z.string(),
    key: z.string(),
    value: z.string(),
    protected: z.boolean(),
    masked: z.boolean(),
    raw: z.boolean(),
    environment_scope: z.string(),
    description: z.string().nullable(),
  })
  .meta({ id: "Variable" });
export function variable(row: VariableRow): z.output<typeof Variable> {
  return {
    variable_type: row.variableType,
    key: row.key,
    value: row.value,
    protected: row.protected,
    masked: row.masked,
    raw: row.raw,
    environment_scope: row.environmentScope,
    description: row.description ?? null,
  };
}

/** API::Entities::Ci::Variable for an instance variable: no `environment_scope`. */
export const InstanceVariable = Variable.omit({ environment_scope: true }).meta({ id: "InstanceVariable" });
export function instanceVariable(row: VariableRow): z.output<typeof InstanceVariable> {
  const { environment_scope: _, ...shown } = variable(row);
  return shown;
}
