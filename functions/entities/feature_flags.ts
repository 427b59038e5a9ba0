import type { FeatureFlag, LegacyScope, UserList } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";

export type StrategyRow = {
  id: number;
  name: string;
  parameters: Record<string, unknown>;
  scopes: { id: number; environmentScope: string }[];
  userList: Pick<UserList, "id" | "iid" | "name" | "userXids"> | null;
};
export type FeatureFlagRow = FeatureFlag & { strategies: StrategyRow[]; legacyScopes: LegacyScope[] };

/** API::Entities::FeatureFlag::BasicUserList */
export function basicUserList(list: Pick<UserList, "id" | "iid" | "name" | "userXids">) {
  return { id: list.id, iid: list.iid, name: list.name, user_xids: list.userXids };
}

/** API::Entities::FeatureFlag::UserList (with the web paths of the list). */
export function userList(list: UserList, ctx: PresentContext & { projectFullPath: string }) {
  const path = `/${ctx.projectFullPath}/-/feature_flags_user_lists/${list.iid}`;
  return {
    ...basicUserList(list),
    project_id: list.projectId,
    created_at: isoTime(list.createdAt),
    updated_at: isoTime(list.updatedAt),
    path,
    edit_path: `${path}/edit`,
  };
}

/** API::Entities::FeatureFlag::Strategy */
export function strategy(s: StrategyRow) {
  return {
    id: s.id,
    name: s.name,
    parameters: s.parameters,
    scopes: s.scopes.map((scope) => ({ id: scope.id, environment_scope: scope.environmentScope })),
    user_list: s.userList ? basicUserList(s.userList) : null,
  };
}

/** API::Entities::FeatureFlag::LegacyScope */
export function legacyScope(scope: LegacyScope) {
  return {
    id: scope.id,
    active: scope.active,
    environment_scope: scope.environmentScope,
    strategies: scope.strategies,
    created_at: isoTime(scope.createdAt),
    updated_at: isoTime(scope.updatedAt),
  };
}

/** API::Entities::FeatureFlag: `scopes` carries a legacy flag's scopes, `strategies` a new-version flag's. */
export function featureFlag(flag: FeatureFlagRow) {
  return {
    name: flag.name,
    description: flag.description,
    active: flag.active,
    version: flag.version,
    created_at: isoTime(flag.createdAt),
    updated_at: isoTime(flag.updatedAt),
    scopes: flag.legacyScopes.map(legacyScope),
    strategies: flag.strategies.map(strategy),
  };
}
