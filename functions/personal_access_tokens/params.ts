import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /personal_access_tokens` (lib/api/personal_access_tokens.rb): the list's params are its filters. */
export const ListTokens = z.object({
  user_id: p.int().optional(),
  revoked: p.bool().optional(),
  state: p.oneOf("active", "inactive").optional(),
  created_before: p.datetime().optional(),
  created_after: p.datetime().optional(),
  last_used_before: p.datetime().optional(),
  last_used_after: p.datetime().optional(),
  search: p.string().optional(),
  ...pageParams.shape,
});

export type ListParams = z.output<typeof ListTokens>;
