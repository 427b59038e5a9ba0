import * as z from "zod";
import type { BroadcastMessage as Row } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";

/** API::Entities::BroadcastMessage (lib/api/entities/broadcast_message.rb, 15.4). */
export const BroadcastMessage = z
  .object({
    id: z.int(),
    message: z.string(),
    starts_at: z.string().nullable(),
    ends_at: z.string().nullable(),
    color: z.string().nullable(),
    font: z.string().nullable(),
    target_access_levels: z.array(z.int()),
    target_path: z.string().nullable(),
    broadcast_type: z.string(),
    dismissable: z.boolean().nullable(),
    active: z.boolean(),
  })
  .meta({ id: "BroadcastMessage" });

/** BroadcastMessage#active?: started and not ended. */
export function isActive(row: Pick<Row, "startsAt" | "endsAt">, now: Date): boolean {
  return new Date(row.startsAt).getTime() <= now.getTime() && new Date(row.endsAt).getTime() > now.getTime();
}

export function broadcastMessage(row: Row, ctx: PresentContext): z.output<typeof BroadcastMessage> {
  return {
    id: row.id,
    message: row.message,
    starts_at: isoTime(row.startsAt),
    ends_at: isoTime(row.endsAt),
    color: row.color,
    font: row.font,
    target_access_levels: row.targetAccessLevels,
    target_path: row.targetPath,
    broadcast_type: row.broadcastType,
    dismissable: row.dismissable,
    active: isActive(row, ctx.now),
  };
}
