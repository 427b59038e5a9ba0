import * as z from "zod";
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
export const BasicUserList = z.object({ id: z.int(), iid: z.int(), name: z.string(), user_xids: z.string() }).meta({ id: "BasicUserList" });
export function basicUserList(list: Pick<UserList, "id" | "iid" | "name" | "userXids">): z.output<typeof BasicUserList> {
  return { id: list.id, iid: list.iid, name: list.name, user_xids: list.userXids };
}

/** API::Entities::FeatureFlag::UserList (with the web paths of the list). */
export const UserListEntity = BasicUserList.extend({
  project_id: z.int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  path: z.string(),
  edit_path: z.string(),
}).meta({ id: "UserList" });
export function userList(list: UserList, ctx: PresentContext & { projectFullPath: string }): z.output<typeof UserListEntity> {
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
const Strategy = z.object({
  id: z.int(),
  name: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  scopes: z.array(z.object({ id: z.int(), environment_scope: z.string() })),
  user_list: BasicUserList.nullable(),
});
export function strategy(s: StrategyRow): z.output<typeof Strategy> {
  return {
    id: s.id,
    name: s.name,
    parameters: s.parameters,
    scopes: s.scopes.map((scope) => ({ id: scope.id, environment_scope: scope.environmentScope })),
    user_list: s.userList ? basicUserList(s.userList) : null,
  };
}

/** API::Entities::FeatureFlag::LegacyScope */
const LegacyScopeEntity = z.object({
  id: z.int(),
  active: z.boolean(),
  environment_scope: z.string(),
  strategies: z.array(z.object({ name: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export function legacyScope(scope: LegacyScope): z.output<typeof LegacyScopeEntity> {
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
export const FeatureFlagEntity = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean(),
    version: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    scopes: z.array(LegacyScopeEntity),
    strategies: z.array(Strategy),
  })
  .meta({ id: "FeatureFlag" });
export function featureFlag(flag: FeatureFlagRow): z.output<typeof FeatureFlagEntity> {
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
