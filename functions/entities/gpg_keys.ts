import type { GpgKey } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::GpgKey (lib/api/entities/gpg_key.rb). */
export function gpgKey(row: GpgKey) {
  return { id: row.id, key: row.key, created_at: isoTime(row.createdAt) };
}
