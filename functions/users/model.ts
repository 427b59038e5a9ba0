/**
 * The validations of GitLab 15.4's User model (app/models/user.rb, the Devise validatable module, the
 * namespace path validator of the personal namespace, user_detail) as pure functions. They produce
 * `render_validation_error!`'s `{attr: [messages]}`; uniqueness is checked against the database by the
 * service.
 */

/** Gitlab::PathRegex::TOP_LEVEL_ROUTES: names a personal namespace cannot take. */
const TOP_LEVEL_ROUTES = new Set([
  "-",
  ".well-known",
  "404.html",
  "422.html",
  "500.html",
  "502.html",
  "503.html",
  "abuse_reports",
  "admin",
  "api",
  "apple-touch-icon-precomposed.png",
  "apple-touch-icon.png",
  "assets",
  "autocomplete",
  "ci",
  "dashboard",
  "deploy.html",
  "explore",
  "favicon.ico",
  "files",
  "groups",
  "header_logo_dark.png",
  "header_logo_light.png",
  "health_check",
  "help",
  "import",
  "invites",
  "jwt",
  "koding",
  "notification_settings",
  "oauth",
  "profile",
  "projects",
  "public",
  "robots.txt",
  "s",
  "search",
  "sent_notifications",
  "slash-command-logo.png",
  "snippets",
  "u",
  "unsubscribes",
  "uploads",
  "users",
]);

/** Extensions of Rails' registered MIME types (`Mime::EXTENSION_LOOKUP`), refused at the end of a username. */
const MIME_EXTENSIONS = [
  "html", "htm", "text", "txt", "js", "css", "ics", "csv", "vcf", "vtt", "png", "jpeg", "jpg", "jpe", "pjpeg", "gif",
  "bmp", "tiff", "tif", "svg", "webp", "mpeg", "mpg", "mpe", "mp3", "ogg", "oga", "opus", "m4a", "webm", "mp4", "m4v",
  "otf", "ttf", "woff", "woff2", "xml", "rss", "atom", "yaml", "yml", "json", "pdf", "zip", "gzip", "gz",
];

/** Gitlab::PathRegex.namespace_format_regex. */
const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])(?<!\.git|\.atom)$/;
export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Devise.email_regexp as GitLab configures it. */
const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+$/;

/** Gitlab::Themes and Gitlab::ColorSchemes ids. */
const THEME_IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const COLOR_SCHEME_IDS = [1, 2, 3, 4, 5, 6];
const MAX_INT = 2147483647;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** The attributes being written, as they will be stored (only those that change are validated). */
export type UserChanges = {
  email?: string;
  password?: string | null;
  name?: string;
  username?: string;
  publicEmail?: string | null;
  projectsLimit?: number;
  themeId?: number;
  colorSchemeId?: number;
  bio?: string;
};

export type ValidationErrors = Record<string, string[]>;

/** The application settings `password_{number,lowercase,uppercase,symbol}_required`. */
export type PasswordComplexity = { number: boolean; lowercase: boolean; uppercase: boolean; symbol: boolean };

/** EE's Password::ComplexityValidator::COMPLEXITY_RULES, in its order. */
const COMPLEXITY_RULES: [keyof PasswordComplexity, RegExp, string][] = [
  ["number", /\p{N}/u, "requires at least one number"],
  ["lowercase", /\p{Ll}/u, "requires at least one lowercase letter"],
  ["uppercase", /\p{Lu}/u, "requires at least one uppercase letter"],
  ["symbol", /[^\p{N}\p{Lu}\p{Ll}]/u, "requires at least one symbol character"],
];

/** The complexity rules the settings turn on. */
export const passwordComplexity = (settings: Record<string, unknown>): PasswordComplexity => ({
  number: settings.password_number_required === true,
  lowercase: settings.password_lowercase_required === true,
  uppercase: settings.password_uppercase_required === true,
  symbol: settings.password_symbol_required === true,
});

/**
 * Validates the changes. `verifiedEmails` are the e-mails the user owns (the primary one once
 * confirmed): `public_email` must be one of them. `passwordRequired` is Devise's `password_required?`.
 */
export function validateUser(
  changes: UserChanges,
  opts: { passwordRequired: boolean; verifiedEmails: string[]; minimumPasswordLength?: number; passwordComplexity?: PasswordComplexity },
): ValidationErrors {
  // The application setting `minimum_password_length` (Devise's `password_length` lower bound).
  const passwordMin = opts.minimumPasswordLength ?? PASSWORD_MIN;
  const errors: ValidationErrors = {};
  const add = (attr: string, message: string) => (errors[attr] ??= []).push(message);

  if (changes.email !== undefined) {
    if (changes.email.trim() === "") add("email", "can't be blank");
    else if (!EMAIL_FORMAT.test(changes.email)) add("email", "is invalid");
  }
  if (opts.passwordRequired || (changes.password !== undefined && changes.password !== null)) {
    const password = changes.password ?? "";
    if (password === "") add("password", "can't be blank");
    else if (password.length < passwordMin) add("password", `is too short (minimum is ${passwordMin} characters)`);
    else if (password.length > PASSWORD_MAX) add("password", `is too long (maximum is ${PASSWORD_MAX} characters)`);
    if (password !== "" && opts.passwordComplexity)
      for (const [rule, pattern, message] of COMPLEXITY_RULES) if (opts.passwordComplexity[rule] && !pattern.test(password)) add("password", message);
  }
  if (changes.name !== undefined) {
    if (changes.name.trim() === "") add("name", "can't be blank");
    else if (changes.name.length > 255) add("name", "is too long (maximum is 255 characters)");
  }
  if (changes.publicEmail) {
    if (!EMAIL_FORMAT.test(changes.publicEmail)) add("public_email", "is invalid");
    if (!opts.verifiedEmails.includes(changes.publicEmail)) add("public_email", "is not an email you own");
  }
  if (changes.projectsLimit !== undefined) {
    if (changes.projectsLimit < 0) add("projects_limit", "must be greater than or equal to 0");
    else if (changes.projectsLimit > MAX_INT) add("projects_limit", `must be less than or equal to ${MAX_INT}`);
  }
  if (changes.username !== undefined) for (const message of usernameErrors(changes.username)) add("username", message);
  if (changes.themeId !== undefined && !THEME_IDS.includes(changes.themeId))
    add("theme_id", `${changes.themeId} is not a valid theme`);
  if (changes.colorSchemeId !== undefined && !COLOR_SCHEME_IDS.includes(changes.colorSchemeId))
    add("color_scheme_id", `${changes.colorSchemeId} is not a valid color scheme`);
  if (changes.bio !== undefined && changes.bio.length > 255) add("bio", "is too long (maximum is 255 characters)");
  return errors;
}

/** The username's own checks, then those of the personal namespace path it becomes (NamespacePathValidator). */
function usernameErrors(username: string): string[] {
  if (username.trim() === "") return ["can't be blank"];
  const errors: string[] = [];
  const lower = username.toLowerCase();
  if (MIME_EXTENSIONS.some((ext) => lower.endsWith(`.${ext}`))) errors.push("ending with a reserved file extension is not allowed.");
  if (username.length > 255) errors.push("is too long (maximum is 255 characters)");
  if (!NAMESPACE_FORMAT.test(username)) errors.push(NAMESPACE_FORMAT_MESSAGE);
  else if (TOP_LEVEL_ROUTES.has(lower)) errors.push(`${username} is a reserved name`);
  return errors;
}

export function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0;
}
