/**
 * A wiki page's markup as HTML (MarkupHelper#markup_unsafe, GitLab 15.4): Markdown through the one
 * Markdown renderer; AsciiDoc, RDoc and Org through their converters and then the same sanitiser
 * (`shared/markdown/engine.ts#sanitize`, GitLab's SanitizationFilter allow-list), so no script, event
 * handler or `javascript:` link survives whatever the markup lets through; any other markup (textile,
 * creole, rest, mediawiki, pod, plain text) as its escaped text in a `<pre>`.
 *
 * The converters are imported on first use, like the Markdown engine: a request that renders no such
 * page does not evaluate them (their bytes still count in test/node/bundle_size.test.mjs).
 *
 * - AsciiDoc: downdoc (Asciidoctor's author's AsciiDoc-to-Markdown converter, about 6 KiB gzip), then
 *   the plain Markdown pipeline (GitLab's AsciiDoc pipeline resolves no references or emoji).
 *   Differs from GitLab: GitLab runs Asciidoctor; `@asciidoctor/core` is about 100 KiB gzip, a tenth
 *   of the Worker's 1 MiB budget, so the HTML is Markdown's (`<h2>`, `<p>`, `<ul>`, `<pre><code>`)
 *   rather than Asciidoctor's `<div class="sect1">` / `<div class="paragraph">` wrappers, and
 *   AsciiDoc features downdoc does not carry (includes, TOC, footnotes, STEM, callout numbering) are
 *   not rendered.
 * - RDoc: `./rdoc.ts`, hand-written (no JavaScript library reads RDoc).
 * - Org: uniorg (`./org.ts`), where GitLab uses org-ruby.
 */
import type { MarkdownOptions, MarkdownScope } from "../markdown/render";
import { renderMarkdown } from "../markdown/render";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * ActionView's simple_format: what markup_unsafe answers when a converter fails (GitLab rescues the
 * error and shows the text): paragraphs on blank lines, `<br />` on single line breaks, escaped.
 */
export function simpleFormat(text: string): string {
  const paragraphs = text.replace(/\r\n?/g, "\n").split(/\n\n+/).filter((p) => p.trim() !== "");
  return (paragraphs.length ? paragraphs : [""]).map((p) => `<p>${escapeHtml(p).replace(/\n/g, "\n<br />")}</p>`).join("\n\n");
}

/** The formats `renderMarkup` converts; others come back as escaped text. */
export const RENDERED_FORMATS = ["markdown", "asciidoc", "rdoc", "org"] as const;

/** `text` in `format` (a wiki page's format, shared/wikis/pages.ts) as sanitised HTML. */
export async function renderMarkup(scope: MarkdownScope, format: string, text: string, options: MarkdownOptions = {}): Promise<string> {
  if (format === "markdown") return renderMarkdown(scope, text, options);
  if (!(RENDERED_FORMATS as readonly string[]).includes(format)) return `<pre>${escapeHtml(text)}</pre>`;
  let html: string;
  try {
    if (format === "asciidoc") {
      const { default: downdoc } = await import("downdoc");
      // The plain pipeline sanitises the Markdown's HTML (passthrough blocks included).
      return await renderMarkdown(scope, downdoc(text), { ...options, gfm: false });
    }
    html = format === "rdoc" ? (await import("./rdoc")).rdocToHtml(text) : (await import("./org")).orgToHtml(text);
  } catch (error) {
    // MarkupHelper#markup_unsafe: a converter's error is tracked and the text shown simply formatted.
    console.error(`[markup] ${format} rendering failed: ${error instanceof Error ? error.message : String(error)}`);
    return simpleFormat(text);
  }
  const { sanitize } = await import("../markdown/engine");
  return sanitize(html).replace(/\n$/, "");
}
