// The pure rules of wiki pages (app/models/wiki.rb, wiki_page.rb): which files are pages, their slugs,
// titles and formats, how a title becomes a file name, and WikiPage's validations. No I/O.

/** Wiki::MARKUPS: each format's extensions and the one a new page gets; `user`: the API may write it. */
const MARKUPS: { format: string; ext: string; pattern: string; user?: true }[] = [
  { format: "markdown", ext: "md", pattern: "md|mkdn?|mdown|markdown", user: true },
  { format: "rdoc", ext: "rdoc", pattern: "rdoc", user: true },
  { format: "asciidoc", ext: "asciidoc", pattern: "adoc|asciidoc", user: true },
  { format: "org", ext: "org", pattern: "org", user: true },
  { format: "textile", ext: "textile", pattern: "textile" },
  { format: "creole", ext: "creole", pattern: "creole" },
  { format: "rest", ext: "rst", pattern: "re?st(?:\\.txt)?" },
  { format: "mediawiki", ext: "mediawiki", pattern: "(?:media)?wiki" },
  { format: "pod", ext: "pod", pattern: "pod" },
  { format: "plaintext", ext: "txt", pattern: "txt" },
];

/** The `format` values of POST and PUT (Wiki::VALID_USER_MARKUPS). */
export const USER_FORMATS = MARKUPS.filter((m) => m.user).map((m) => m.format) as [string, ...string[]];

const EXTENSIONS = MARKUPS.map((m) => m.pattern).join("|");
/** A page file: its extension is one of a markup's (Wiki::ALLOWED_EXTENSIONS_REGEX), case-insensitive. */
const PAGE_FILE = new RegExp(`\\.(?:${EXTENSIONS})$`, "i");

export const isPagePath = (path: string) => PAGE_FILE.test(path);

/**
 * The format of a page file, from its last extension (Wiki#find_page_format: the first markup whose
 * pattern occurs in it, unanchored as Ruby's `match?`).
 */
export function pageFormat(path: string): string {
  const ext = extname(path).slice(1);
  return MARKUPS.find((m) => new RegExp(m.pattern, "i").test(ext))?.format ?? "markdown";
}

/** The extension a page of `format` is written with (`default_extension`). */
export const formatExtension = (format: string) => MARKUPS.find((m) => m.format === format)?.ext ?? "md";

/** Ruby's File.extname: the last `.ext` of the base name, none for dot files. */
function extname(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 && dot < base.length - 1 ? base.slice(dot) : "";
}

/** A page's slug: its path without the extension (`strip_extension`, the page's `url_path`). */
export const slugOf = (path: string) => path.slice(0, path.length - extname(path).length);

/** A page's title: the base name without extension, hyphens as spaces (Wiki.canonicalize_filename). */
export function titleOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return base.slice(0, base.length - extname(base).length).replace(/-/g, " ");
}

/** The directory of a slug (WikiPage#directory). */
export const directoryOf = (slug: string) => (slug.includes("/") ? slug.slice(0, slug.lastIndexOf("/")) : "");

/**
 * Wiki.sluggified_title: stripped, resolved as an absolute path under `/` (`.`, `..` and repeated
 * slashes disappear; nothing climbs above the root) and made relative, spaces as hyphens.
 */
export function sluggifiedTitle(title: string): string {
  const parts: string[] = [];
  for (const part of title.trim().split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const joined = parts.join("/");
  return (joined === "" ? "." : joined).replace(/ /g, "-");
}

/** The file a page titled `title` is written to (Wiki.sluggified_full_path). */
export const pagePath = (title: string, ext: string) => `${sluggifiedTitle(title)}.${ext}`;

/** Ruby's String#squish: trimmed, inner whitespace runs as one space. */
const squish = (s: string) => s.trim().replace(/\s+/g, " ");

/**
 * WikiPage#process_title: each path component squished; for an existing page, a title without a
 * directory stays in the page's directory and a leading `/` moves it to the root.
 */
export function processTitle(title: string, existingSlug: string | null): string {
  const squished = title.split("/").map(squish).join("/");
  if (existingSlug !== null) {
    const slash = squished.lastIndexOf("/");
    if (slash === 0) return squished.slice(1);
    if (slash < 0) {
      const dir = directoryOf(existingSlug);
      return dir ? `${dir}/${squished}` : squished;
    }
  }
  return squished;
}

/** Gitlab::WikiPages::MAX_TITLE_BYTES and MAX_DIRECTORY_BYTES. */
export const MAX_TITLE_BYTES = 245;
export const MAX_DIRECTORY_BYTES = 255;

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** ActiveSupport's number_to_human_size (base 1024, three significant digits, trailing zeros dropped). */
export function humanSize(n: number): string {
  if (n < 1024) return `${n} ${n === 1 ? "Byte" : "Bytes"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = n;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = Math.max(0, 3 - String(Math.floor(value)).length);
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

/**
 * WikiPage's validations, as ActiveModel errors (`{attribute: [messages]}`): the title's presence and
 * path limits (when the title changes), the content's size (`wiki_page_max_content_bytes`).
 */
export function pageErrors(input: { title: string; titleChanged: boolean; content: string; contentChanged: boolean; maxContentBytes: number }): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (input.title.trim() === "") add("title", "can't be blank");
  if (input.titleChanged && input.title.trim() !== "") {
    const parts = input.title.split("/");
    const filename = parts.pop();
    if (filename && bytes(filename) > MAX_TITLE_BYTES) add("title", `exceeds the limit of ${MAX_TITLE_BYTES} bytes`);
    for (const dir of parts) {
      if (bytes(dir) > MAX_DIRECTORY_BYTES) add("title", `exceeds the limit of ${MAX_DIRECTORY_BYTES} bytes for directory name "${dir}"`);
    }
  }
  if (input.contentChanged) {
    const size = bytes(input.content);
    if (size > input.maxContentBytes) add("content", `is too long (${humanSize(size)}). The maximum size is ${humanSize(input.maxContentBytes)}.`);
  }
  return Object.keys(errors).length ? errors : null;
}

/** Regexp.escape for the page lookup. */
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Wiki#find_matched_file: the first file (in path order) named `<title>.<page extension>`,
 * case-insensitive, else the same for the title's slug.
 */
export function matchPage(paths: string[], title: string): string | null {
  for (const candidate of [title, sluggifiedTitle(title)]) {
    const pattern = new RegExp(`^${escape(candidate)}\\.(?:${EXTENSIONS})$`, "i");
    const found = paths.find((p) => pattern.test(p));
    if (found) return found;
  }
  return null;
}

/** Wikis::CreateAttachmentService::MAX_FILENAME_LENGTH. */
export const MAX_FILENAME_LENGTH = 255;

/**
 * Wikis::CreateAttachmentService#truncate_file_name: a name over 255 characters keeps its extension and
 * loses the end of its base name.
 */
export function truncateFileName(name: string): string {
  const chars = [...name];
  if (chars.length <= MAX_FILENAME_LENGTH) return name;
  const ext = extname(name);
  const base = [...name.slice(0, name.length - ext.length)];
  return base.slice(0, MAX_FILENAME_LENGTH - [...ext].length).join("") + ext;
}

/** Gitlab::FileMarkdownLinkBuilder: images and videos embed (`![name](url)`, name without extension). */
export function markdownLink(fileName: string, url: string): string {
  const embed = /\.(png|jpe?g|gif|bmp|tiff?|ico|webp|svg|mp4|m4v|mov|webm|ogv)$/i.test(fileName);
  const ext = extname(fileName);
  return embed ? `![${fileName.slice(0, fileName.length - ext.length)}](${url})` : `[${fileName}](${url})`;
}
