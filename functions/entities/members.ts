import * as z from "zod";
import type { Member as MemberModel, User } from "../../db/schema";
import { isoDate, isoTime, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";

/** A member as the queries load it: the row, its user, who added it, and the level to show. */
export type MemberRow = {
  member: MemberModel;
  user: User;
  createdBy: User | null;
  /** The stored level for direct members; for `/members/all`, the effective (highest) level. */
  accessLevel: number;
  /** EE `is_using_seat`, loaded only when `show_seat_info` is asked for. */
  isUsingSeat?: boolean;
};

export type MemberContext = PresentContext & { showSeatInfo?: boolean };

/**
 * API::Entities::Member (lib/api/entities/member.rb) with EE's additions (ee/lib/ee/api/entities/member.rb).
 * `group_saml_identity` is exposed only to owners of SAML-enabled groups and `email` only for managed
 * accounts; neither exists here, so both are absent, as GitLab omits them. `override` is for LDAP
 * members only. Members have no awaiting state here, so `membership_state` is always `active`.
 */
export const Member = UserBasic.extend({
  access_level: z.int(),
  created_at: z.string().nullable(),
  created_by: UserBasic.optional(),
  expires_at: z.string().nullable(),
  is_using_seat: z.boolean().optional(),
  membership_state: z.string(),
}).meta({ id: "Member" });
export function member(row: MemberRow, ctx: MemberContext): z.output<typeof Member> {
  return {
    ...userBasic(row.user, ctx),
    access_level: row.accessLevel,
    created_at: isoTime(row.member.createdAt),
    ...(row.createdBy ? { created_by: userBasic(row.createdBy, ctx) } : {}),
    expires_at: isoDate(row.member.expiresAt),
    ...(ctx.showSeatInfo ? { is_using_seat: !!row.isUsingSeat } : {}),
    membership_state: "active",
  };
}

/** The answer of a multi-user add (Members::CreateService result, presented as is). */
export const MemberCreateResult = z
  .object({ status: z.enum(["success", "error"]), message: z.string().optional() })
  .meta({ id: "MemberCreateResult" });
export function createResult(errors: string | null): z.output<typeof MemberCreateResult> {
  return errors === null ? { status: "success" } : { message: errors, status: "error" };
}
