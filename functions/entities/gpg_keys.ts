import * as z from "zod";
import type { GpgKey } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** API::Entities::GpgKey (lib/api/entities/gpg_key.rb). */
export const GpgKeyEntity = z.object({ id: z.int(), key: z.string(), created_at: z.string().nullable() }).meta({ id: "GpgKey" });
export function gpgKey(row: GpgKey): z.output<typeof GpgKeyEntity> {
  return { id: row.id, key: row.key, created_at: isoTime(row.createdAt) };
}
