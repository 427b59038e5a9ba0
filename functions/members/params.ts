import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /:source/:id/members` (lib/api/members.rb): direct members. MembersFinder's params, which the
 * list query reads as declared.
 */
export const ListMembers = z.object({
  query: p.string().optional(),
  user_ids: p.ints({ comma: true }).optional(),
  skip_users: p.ints({ comma: true }).optional(),
  show_seat_info: p.bool().optional(),
  // EE: only filters when the group has a SAML provider, which none has here.
  with_saml_identity: p.bool().optional(),
  ...pageParams.shape,
});

/** `GET /:source/:id/members/all`: direct and inherited members; `state` (EE) instead of `skip_users`. */
export const ListAllMembers = z.object({
  query: p.string().optional(),
  user_ids: p.ints({ comma: true }).optional(),
  show_seat_info: p.bool().optional(),
  state: p.oneOf("awaiting", "active").optional(),
  ...pageParams.shape,
});

export type ListParams = Partial<z.output<typeof ListMembers> & z.output<typeof ListAllMembers>>;
