import { highlightAs, type HighlightLanguage } from "./highlight_core.js";

/**
 * Syntax highlighting of blobs (GitLab highlights with Rouge): highlight.js core and a curated set of
 * languages, chosen by file name. Other files are shown as plain text. highlight.js escapes the source
 * itself; its output is HTML of `<span class="hljs-…">` only.
 */
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

/** Past this size a blob is shown without highlighting (the work grows with the text). */
const MAX_HIGHLIGHT_BYTES = 256 * 1024;

/** The highlight.js language of a file name, if one of the curated set fits. */
export function languageOf(fileName: string): HighlightLanguage | null {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1).toLowerCase();
  if (BY_NAME[base]) return BY_NAME[base];
  const dot = base.lastIndexOf(".");
  return dot > 0 ? (BY_EXTENSION[base.slice(dot + 1)] ?? null) : null;
}

/** The text as highlighted HTML, or null when it is shown as plain (escaped) text. */
export function highlight(fileName: string, text: string): string | null {
  const language = languageOf(fileName);
  if (!language || text.length > MAX_HIGHLIGHT_BYTES) return null;
  return highlightAs(language, text);
}
