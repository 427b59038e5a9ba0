/** The languages functions/web/browser/highlight.js registers. */
export type HighlightLanguage =
  | "bash" | "c" | "cpp" | "css" | "diff" | "dockerfile" | "go" | "ini" | "java" | "javascript"
  | "json" | "markdown" | "python" | "ruby" | "rust" | "sql" | "typescript" | "xml" | "yaml";

/**
 * Syntax highlighting of blobs (GitLab highlights with Rouge on the server): highlight.js with a
 * curated set of languages, chosen here by file name and run in the browser by the static asset
 * `/-/web/highlight.js` (functions/web/browser/highlight.js). Differs from GitLab: the highlighting
 * needs JavaScript (the text reads the same without it); in the Worker's bundle highlight.js would
 * cost about 29 KiB gzip of its 1 MiB.
 */
export const HIGHLIGHT_SCRIPT = "/-/web/highlight.js";

const BY_EXTENSION: Record<string, HighlightLanguage> = {
  sh: "bash", bash: "bash", zsh: "bash",
  c: "c", h: "c",
  cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp",
  css: "css", scss: "css",
  diff: "diff", patch: "diff",
  go: "go",
  ini: "ini", toml: "ini", cfg: "ini", conf: "ini",
  java: "java", kt: "java",
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  json: "json",
  md: "markdown", markdown: "markdown",
  py: "python",
  rb: "ruby", rake: "ruby", gemspec: "ruby",
  rs: "rust",
  sql: "sql",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  html: "xml", htm: "xml", xml: "xml", svg: "xml", vue: "xml",
  yml: "yaml", yaml: "yaml",
};
const BY_NAME: Record<string, HighlightLanguage> = { dockerfile: "dockerfile", gemfile: "ruby", rakefile: "ruby", makefile: "bash", ".gitlab-ci.yml": "yaml" };

/** Past this size a blob is shown without highlighting (the browser's work grows with the text). */
export const MAX_HIGHLIGHT_BYTES = 256 * 1024;

/** The highlight.js language of a file name, if one of the curated set fits. */
export function languageOf(fileName: string): HighlightLanguage | null {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1).toLowerCase();
  if (BY_NAME[base]) return BY_NAME[base];
  const dot = base.lastIndexOf(".");
  return dot > 0 ? (BY_EXTENSION[base.slice(dot + 1)] ?? null) : null;
}
