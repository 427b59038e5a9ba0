// GitLab Flavored Markdown to HTML (Banzai's output for `render_html`, simplified). Minimal renderer:
// markdown-it with raw HTML off (every tag written in the source is escaped, so the output holds only
// markdown-it's own elements) and its link validation (no `javascript:`, `vbscript:`, `file:` or
// non-image `data:` URLs). markdown-it is loaded on first use, so the Worker's startup does not pay for it.
//
// Differs from GitLab: no `data-sourcepos`, `dir="auto"`, references (#1, !1, @user), emoji, task
// lists, math, Mermaid or PlantUML; raw HTML is escaped instead of sanitised.
type MarkdownIt = { render(src: string): string };

let renderer: Promise<MarkdownIt> | null = null;

async function load(): Promise<MarkdownIt> {
  const { default: MarkdownIt } = await import("markdown-it");
  return new MarkdownIt({ html: false, linkify: true, breaks: false });
}

/** The HTML of a Markdown text (safe to embed: no raw HTML, no script URLs). */
export async function renderMarkdown(text: string): Promise<string> {
  renderer ??= load();
  return (await renderer).render(text);
}
