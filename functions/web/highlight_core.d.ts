/** highlight_core.js: highlight.js with the curated languages registered. */
export type HighlightLanguage =
  | "bash" | "c" | "cpp" | "css" | "diff" | "dockerfile" | "go" | "ini" | "java" | "javascript"
  | "json" | "markdown" | "python" | "ruby" | "rust" | "sql" | "typescript" | "xml" | "yaml";
export function highlightAs(language: HighlightLanguage, text: string): string;
