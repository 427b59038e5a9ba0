/**
 * Org mode to HTML: uniorg's parser and its HTML conversion (Emacs's own export rules, ported), then
 * hast-util-to-html. GitLab renders `.org` wiki pages through github-markup with org-ruby; the HTML
 * differs in detail (org-ruby writes `<pre class="src">`, uniorg `<pre class="src-block"><code>`) and
 * both go through the sanitiser, which drops those classes. Imported on first use by `./index.ts`.
 */
import { toHtml } from "hast-util-to-html";
import { parse } from "uniorg-parse/lib/parser.js";
import { orgToHast } from "uniorg-rehype/lib/org-to-hast.js";

/** An Org document as HTML, before sanitising. */
export function orgToHtml(text: string): string {
  return toHtml(orgToHast(parse(text)) as Parameters<typeof toHtml>[0]);
}
