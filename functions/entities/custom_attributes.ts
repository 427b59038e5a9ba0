import type * as z from "zod";
import type { CustomAttribute } from "./users";

/** A custom attribute as stored: its key and value. */
export type CustomAttributeRow = { key: string; value: string };

/** API::Entities::CustomAttribute (lib/api/entities/custom_attribute.rb). */
export function customAttribute(row: CustomAttributeRow): z.output<typeof CustomAttribute> {
  return { key: row.key, value: row.value };
}
