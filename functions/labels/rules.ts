/**
 * Label colours (lib/gitlab/color.rb): `#rgb` or `#rrggbb`, or a CSS colour name (any case, trimmed),
 * which GitLab stores as its upper-case hex value. Pure: the label routes validate with them.
 */
import cssColorNames from "color-name";

/** GitLab's table is CSS's named colours without `cyan` and `magenta`. */
const GITLAB_LEAVES_OUT = new Set(["cyan", "magenta"]);

function hexOf(name: string): string | undefined {
  if (GITLAB_LEAVES_OUT.has(name) || !Object.hasOwn(cssColorNames, name)) return undefined;
  return "#" + cssColorNames[name as keyof typeof cssColorNames].map((v) => v.toString(16).padStart(2, "0").toUpperCase()).join("");
}

/** `Gitlab::Color.of(value)`: a known name becomes its hex value; anything else is kept, trimmed. */
export function normalizeColor(value: string): string {
  const color = value.trim();
  return hexOf(color.toLowerCase()) ?? color;
}

/** ColorValidator (app/validators/color_validator.rb). */
export function isValidColor(color: string): boolean {
  return /^#(?:[0-9A-Fa-f]{3}){1,2}$/.test(color);
}

/**
 * Label's validations (app/models/label.rb) in their order: colour, then title (present, no comma, at
 * most 255 characters). An empty object when valid. `title` is null when the (stripped) title is blank:
 * `Label#title=` ignores blank values.
 */
export function labelErrors(values: { title: string | null; color: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!isValidColor(values.color)) errors.color = ["must be a valid color code"];
  const title: string[] = [];
  if (values.title === null) title.push("can't be blank");
  if (values.title === null || !/^[^,]+$/.test(values.title)) title.push("is invalid");
  if (values.title !== null && [...values.title].length > 255) title.push("is too long (maximum is 255 characters)");
  if (title.length) errors.title = title;
  return errors;
}

/** `Label#title=`: stripped, and blank values are not assigned. */
export function labelTitle(value: string): string | null {
  const title = value.trim();
  return title === "" ? null : title;
}
