/** A custom attribute as stored: its key and value. */
export type CustomAttributeRow = { key: string; value: string };

/** API::Entities::CustomAttribute (lib/api/entities/custom_attribute.rb). */
export function customAttribute(row: CustomAttributeRow) {
  return { key: row.key, value: row.value };
}
