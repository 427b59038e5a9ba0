/**
 * RDoc markup to HTML, as RDoc::Markup::ToHtml writes it (GitLab renders `.rdoc` wiki pages through
 * github-markup, which calls `RDoc::Markup::ToHtml.new(RDoc::Options.new).convert`, then its
 * SanitizationFilter). Hand-written because no JavaScript library reads RDoc markup; it covers the
 * markup's core, and its output goes through the Markdown renderer's sanitiser like every other markup.
 *
 * Blocks: headings (`=` to `======`), paragraphs (lines joined), rules (`---`), bullet (`*`, `-`),
 * numbered (`1.`), lettered (`a.`), labelled (`[label]`) and note (`label::`) lists, nested by
 * indentation, and verbatim blocks (lines indented past the text, as `<pre>`). Inline: `*bold*`,
 * `_em_`, `+code+` (one word each), `<b>`, `<em>`, `<i>`, `<tt>`, `<code>` spans, links
 * `{text}[url]` and `word[url]`, bare http(s), ftp and mailto URLs, `\` escapes.
 *
 * Differs from GitLab: verbatim Ruby is not highlighted; no cross-references to classes or methods
 * (a wiki page has none), `:directives:`, tables or image links; any other raw HTML is text.
 */

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

type ListKind = "bullet" | "number" | "lalpha" | "ualpha" | "label" | "note";
type Item = { kind: ListKind; label: string | null; body: string[] };

const indentOf = (line: string) => line.length - line.trimStart().length;
const blank = (line: string) => line.trim() === "";

/** A list item's marker at the start of `line` (already dedented to the block's margin). */
function marker(line: string): { kind: ListKind; label: string | null; rest: string; width: number } | null {
  let m = /^([*-])(\s+)(\S.*)?$/.exec(line);
  if (m && !/^-{3,}\s*$/.test(line)) return { kind: "bullet", label: null, rest: m[3] ?? "", width: 1 + m[2].length };
  if ((m = /^(\d+)\.(\s+)(\S.*)?$/.exec(line))) return { kind: "number", label: null, rest: m[3] ?? "", width: m[1].length + 1 + m[2].length };
  if ((m = /^([a-z])\.(\s+)(\S.*)?$/.exec(line))) return { kind: "lalpha", label: null, rest: m[3] ?? "", width: 2 + m[2].length };
  if ((m = /^([A-Z])\.(\s+)(\S.*)?$/.exec(line))) return { kind: "ualpha", label: null, rest: m[3] ?? "", width: 2 + m[2].length };
  if ((m = /^\[([^\]]+)\](\s*)(.*)$/.exec(line))) return { kind: "label", label: m[1], rest: m[3], width: m[1].length + 2 + m[2].length };
  if ((m = /^(\S[^:]*?)::(?:(\s+)(.*))?$/.exec(line))) return { kind: "note", label: m[1], rest: m[3] ?? "", width: m[1].length + 2 + (m[2]?.length ?? 0) };
  return null;
}

const heading = (line: string) => /^(={1,6})\s*(.*?)\s*$/.exec(line);
const isRule = (line: string) => /^-{3,}\s*$/.test(line);

/** RDoc::Markup::Heading#aref: `label-` and the text with runs of non-word characters as `+`. */
const labelOf = (text: string) => `label-${encodeURIComponent(text.replace(/[^\w]+/g, "+")).replace(/%2B/g, "+")}`;

/** Remove `n` columns of indentation from each line (blank lines become empty). */
const dedent = (lines: string[], n: number) => lines.map((l) => (blank(l) ? "" : l.slice(Math.min(n, indentOf(l)))));

function blocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) {
      i++;
      continue;
    }
    const indent = indentOf(line);
    if (indent > 0) {
      // Verbatim: the indented run, blank lines inside it kept, trailing blank lines dropped.
      let end = i;
      while (end < lines.length && (blank(lines[end]) || indentOf(lines[end]) > 0)) end++;
      const run = lines.slice(i, end);
      while (run.length && blank(run[run.length - 1])) run.pop();
      const margin = Math.min(...run.filter((l) => !blank(l)).map(indentOf));
      out.push(`<pre>${escapeHtml(dedent(run, margin).join("\n"))}</pre>`);
      i = end;
      continue;
    }
    const h = heading(line);
    if (h) {
      const text = h[2];
      const label = labelOf(text);
      out.push(`<h${h[1].length} id="${escapeHtml(label)}">${inline(text)}<span><a href="#${escapeHtml(label)}">&para;</a> <a href="#top">&uarr;</a></span></h${h[1].length}>`);
      i++;
      continue;
    }
    if (isRule(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    const first = marker(line);
    if (first) {
      const items: Item[] = [];
      while (i < lines.length) {
        const m = blank(lines[i]) || indentOf(lines[i]) > 0 ? null : marker(lines[i]);
        if (!m || m.kind !== first.kind) break;
        // The item's body: its first line's text, then every following line indented past the margin
        // (blank lines inside it kept), dedented to the item's text.
        let end = i + 1;
        while (end < lines.length && (blank(lines[end]) || indentOf(lines[end]) > 0)) end++;
        while (end > i + 1 && blank(lines[end - 1])) end--;
        const rest = lines.slice(i + 1, end);
        const margin = rest.filter((l) => !blank(l)).reduce((min, l) => Math.min(min, indentOf(l)), m.rest ? m.width : Infinity);
        items.push({ kind: m.kind, label: m.label, body: [...(m.rest ? [m.rest] : []), ...dedent(rest, margin === Infinity ? 0 : margin)] });
        i = end;
        while (i < lines.length && blank(lines[i])) i++;
      }
      out.push(list(first.kind, items));
      continue;
    }
    // A paragraph: lines up to a blank, indented, heading, rule or list line, joined with spaces.
    const para: string[] = [line];
    i++;
    while (i < lines.length && !blank(lines[i]) && indentOf(lines[i]) === 0 && !heading(lines[i]) && !isRule(lines[i]) && !marker(lines[i])) para.push(lines[i++]);
    out.push(`<p>${inline(para.map((l) => l.trim()).join(" "))}</p>`);
  }
  return out.join("\n");
}

const LIST_TAGS: Record<ListKind, [string, string]> = {
  bullet: ["<ul>", "</ul>"],
  number: ["<ol>", "</ol>"],
  lalpha: ['<ol style="list-style-type: lower-alpha">', "</ol>"],
  ualpha: ['<ol style="list-style-type: upper-alpha">', "</ol>"],
  label: ['<dl class="rdoc-list label-list">', "</dl>"],
  note: ['<dl class="rdoc-list note-list">', "</dl>"],
};

function list(kind: ListKind, items: Item[]): string {
  const [open, close] = LIST_TAGS[kind];
  const body = items.map((item) => (item.label !== null ? `<dt>${inline(item.label)}</dt>\n<dd>${blocks(item.body)}</dd>` : `<li>${blocks(item.body)}</li>`));
  return `${open}\n${body.join("\n")}\n${close}`;
}

/** What may follow a URL in a link: RDoc's HYPERLINK schemes and relative `link:` targets. */
const LINK_TARGET = "(?:https?:|mailto:|ftp:|irc:|link:|www\\.)[^\\]\\s]{1,2000}";
// Each span is bounded (a link's text, a word, a tag's content), so a paragraph of unclosed markers is
// scanned in linear time, not once per marker to its end.
const INLINE = new RegExp(
  [
    "\\\\([*_+\\\\{<])", // 1: an escaped markup character
    `\\{([^}]{1,500})\\}\\[(${LINK_TARGET})\\]`, // 2, 3: {text}[url]
    `([\\w.-]{1,200})\\[(${LINK_TARGET})\\]`, // 4, 5: word[url]
    "<(b|strong|em|i|tt|code)>([\\s\\S]{0,2000}?)</\\6>", // 6, 7: tag markup
    "(?<![\\w*])\\*([^\\s*]{1,200})\\*(?![\\w*])", // 8: *bold*
    "(?<![\\w_])_([^\\s_]{1,200})_(?![\\w_])", // 9: _em_
    "(?<![\\w+])\\+([^\\s+]{1,200})\\+(?![\\w+])", // 10: +code+
    "((?:https?|ftp)://[^\\s<>\"]*[^\\s<>\".,;:!?)\\]]|mailto:[^\\s<>\"]+[^\\s<>\".,;:!?)\\]])", // 11: a bare URL
  ].join("|"),
  "g",
);

const TAGS: Record<string, string> = { b: "strong", strong: "strong", em: "em", i: "em", tt: "code", code: "code" };

/** RDoc::Markup::ToHtml#gen_url: `link:` is relative, `www.` gets http. */
function href(url: string): string {
  if (url.startsWith("link:")) return url.slice(5);
  if (url.startsWith("www.")) return `http://${url}`;
  return url;
}

/** Inline markup of one paragraph's text: everything that is not markup is escaped. */
export function inline(text: string): string {
  let out = "";
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    out += escapeHtml(text.slice(at, m.index));
    at = m.index! + m[0].length;
    if (m[1] !== undefined) out += escapeHtml(m[1]);
    else if (m[2] !== undefined) out += `<a href="${escapeHtml(href(m[3]))}">${inline(m[2])}</a>`;
    else if (m[4] !== undefined) out += `<a href="${escapeHtml(href(m[5]))}">${escapeHtml(m[4])}</a>`;
    else if (m[6] !== undefined) {
      const tag = TAGS[m[6]];
      out += `<${tag}>${tag === "code" ? escapeHtml(m[7]) : inline(m[7])}</${tag}>`;
    } else if (m[8] !== undefined) out += `<strong>${escapeHtml(m[8])}</strong>`;
    else if (m[9] !== undefined) out += `<em>${escapeHtml(m[9])}</em>`;
    else if (m[10] !== undefined) out += `<code>${escapeHtml(m[10])}</code>`;
    else out += `<a href="${escapeHtml(m[11])}">${escapeHtml(m[11])}</a>`;
  }
  return out + escapeHtml(text.slice(at));
}

/** An RDoc document as HTML, before sanitising. */
export function rdocToHtml(text: string): string {
  return blocks(text.replace(/\t/g, "        ").split(/\r?\n/));
}
