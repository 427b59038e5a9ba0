import type { Email } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::Email (lib/api/entities/email.rb). */
export function email(row: Email) {
  return { id: row.id, email: row.email, confirmed_at: isoTime(row.confirmedAt) };
}
