import * as z from "zod";
import type { Email } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::Email (lib/api/entities/email.rb). */
export const EmailEntity = z.object({ id: z.int(), email: z.string(), confirmed_at: z.string().nullable() }).meta({ id: "Email" });
export function email(row: Email): z.output<typeof EmailEntity> {
  return { id: row.id, email: row.email, confirmed_at: isoTime(row.confirmedAt) };
}
