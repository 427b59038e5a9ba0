import * as z from "zod";
import type { User } from "../../db/schema";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

export type BillableRow = User & { membershipType: string; maxAccessLevel: number; isLastOwner: boolean };

export type MembershipRow = {
  id: number;
  sourceType: string;
  sourceId: number;
  sourceFullName: string;
  sourceFullPath: string;
  accessLevel: number;
  createdAt: Date;
  expiresAt: string | null;
};

/** EE::API::Entities::BillableMember. */
export const BillableMember = UserBasic.extend({
  email: z.string().nullable(),
  last_activity_on: z.string().nullable(),
  membership_type: z.string(),
  removable: z.boolean(),
  created_at: z.string().nullable(),
  is_last_owner: z.boolean(),
  last_login_at: z.string().nullable(),
}).meta({ id: "BillableMember" });
export function billableMember(row: BillableRow, ctx: PresentContext): z.output<typeof BillableMember> {
  return {
    ...userBasic(row, ctx),
    email: row.publicEmail || null,
    last_activity_on: isoDate(row.lastActivityOn),
    membership_type: row.membershipType,
    // Direct members may be removed here; users who only come through a share may not.
    removable: row.membershipType === "group_member" || row.membershipType === "project_member",
    created_at: isoTime(row.createdAt),
    is_last_owner: row.isLastOwner,
    last_login_at: isoTime(row.currentSignInAt),
  };
}

const ROLE_NAMES: Record<number, string> = { 5: "Minimal Access", 10: "Guest", 20: "Reporter", 30: "Developer", 40: "Maintainer", 50: "Owner" };

/** API::Entities::Membership. */
export const BillableMembership = z
  .object({
    id: z.int(),
    source_id: z.int(),
    source_full_name: z.string(),
    source_members_url: z.string(),
    created_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    access_level: z.object({ string_value: z.string(), integer_value: z.int() }),
  })
  .meta({ id: "BillableMembership" });
export function membership(row: MembershipRow, ctx: PresentContext): z.output<typeof BillableMembership> {
  const members = row.sourceType === "Namespace" ? `groups/${row.sourceFullPath}/-/group_members` : `${row.sourceFullPath}/-/project_members`;
  return {
    id: row.id,
    source_id: row.sourceId,
    source_full_name: row.sourceFullName,
    source_members_url: webUrl(ctx, members),
    created_at: isoTime(row.createdAt),
    expires_at: isoDate(row.expiresAt),
    access_level: { string_value: ROLE_NAMES[row.accessLevel] ?? "", integer_value: row.accessLevel },
  };
}
