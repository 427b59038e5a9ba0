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
export function variable(row: VariableRow) {
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
export function instanceVariable(row: VariableRow) {
  const { environment_scope: _, ...shown } = variable(row);
  return shown;
}
