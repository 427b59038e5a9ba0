/**
 * The Markdown engine: markdown-it (CommonMark with GFM tables, strikethrough and autolinks),
 * markdown-it-task-lists, and the js-xss sanitiser. Imported lazily by `render.ts` (`await import()`),
 * so only requests that render Markdown evaluate it. Pure and synchronous: `parseMarkdown` finds the
 * references a text holds, the caller resolves them in one batch, and `finish` writes the HTML.
 *
 * The order is GitLab's (lib/banzai/pipeline/gfm_pipeline.rb): Markdown to HTML, then the
 * SanitizationFilter, then the filters that add markup of their own (emoji, heading anchors, task list
 * checkboxes, syntax highlighting, references). What those filters add is kept out of the sanitiser's
 * way: the renderer writes a placeholder (a private-use character, this render's random nonce and an
 * index) where a fragment goes, the sanitiser passes it as plain text, and `finish` puts the fragments
 * in. The nonce is unguessable, so a placeholder spelled in the input (raw or as `&#xE000;`) stays text.
 *
 * Differs from GitLab: no `data-sourcepos` or `dir="auto"` attributes; HTML comments are dropped
 * (GitLab keeps them for browsers other than Internet Explorer); Unicode emoji typed as characters are
 * not wrapped in `gl-emoji`; not built: `[[_TOC_]]`, footnotes, math, Mermaid and PlantUML, front
 * matter, relative links rewritten to the repository, and the `$snippet`, `&epic`, `*iteration`,
 * `[vulnerability:…]`, `[feature_flag:…]` and `@all` references.
 */
import markdownIt, { type MarkdownIt, type Token } from "markdown-it";
import taskLists from "markdown-it-task-lists";
import * as xssModule from "xss";
import { gemoji } from "gemoji";
import { escapeHtml, findReferences, type FoundRef } from "./references";

// js-xss is CommonJS: bundlers expose its exports either on the namespace or on its default.
const { FilterXSS, escapeAttrValue, friendlyAttrValue } = (xssModule as unknown as { default?: typeof xssModule }).default ?? xssModule;

const OPEN = "\uE000";
const CLOSE = "\uE001";

const EMOJI = new Map<string, { emoji: string; description: string }>();
for (const entry of gemoji) for (const name of entry.names) EMOJI.set(name, { emoji: entry.emoji, description: entry.description });

/** What one render's rules need: its placeholder writer, the reference linker, and the anchors used so far. */
type RenderEnv = { slot(html: string): string; link(ref: FoundRef): string | null; anchors: Map<string, number> };

function engine(gfm: boolean): MarkdownIt {
  // `html: true`: raw HTML is allowed and then sanitised, as GitLab's pipeline does.
  const md = markdownIt("default", { html: true, linkify: true, typographer: false });
  // GitLab's CommonMark renders `~~x~~` and tables in both pipelines (MarkdownFilter's extensions), as
  // `<del>` and cells with `align`.
  md.renderer.rules.s_open = () => "<del>";
  md.renderer.rules.s_close = () => "</del>";
  md.core.ruler.push("gitlab-table-align", (state) => {
    for (const token of state.tokens) {
      if (token.type !== "th_open" && token.type !== "td_open") continue;
      const align = /^text-align:(left|right|center)$/.exec(String(token.attrGet("style") ?? ""));
      if (!align) continue;
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
      token.attrSet("align", align[1]);
    }
  });
  if (!gfm) return md;
  md.use(taskLists, { enabled: false });
  md.core.ruler.after("github-task-lists", "gitlab-task-lists", (state) => {
    for (const token of state.tokens) {
      // GitLab's TaskListFilter: `<ul class="task-list">` around `<li class="task-list-item">`.
      if ((token.type === "bullet_list_open" || token.type === "ordered_list_open") && token.attrGet("class") === "contains-task-list") token.attrSet("class", "task-list");
      if (token.type !== "inline" || !token.children?.length) continue;
      const first = token.children[0];
      if (first.type === "html_inline" && /^<input class="task-list-item-checkbox"( checked="")? disabled="" type="checkbox">$/.test(first.content)) {
        first.type = "gitlab_checkbox";
        first.meta = { checked: first.content.includes("checked") };
      }
    }
  });
  installTextRule(md);
  const rules = md.renderer.rules;
  // GitLab's TableOfContentsFilter: an empty anchor before the heading's text; repeated ids get `-1`, `-2`.
  rules.heading_open = (toks, i, _options, env?: unknown) => {
    const { slot, anchors } = env as RenderEnv;
    const base = anchorId(inlineText(toks[i + 1]));
    const seen = anchors.get(base) ?? 0;
    anchors.set(base, seen + 1);
    const id = seen === 0 ? base : `${base}-${seen}`;
    return `<${toks[i].tag}>\n${slot(`<a id="user-content-${escapeHtml(id)}" class="anchor" href="#${escapeHtml(id)}" aria-hidden="true"></a>`)}`;
  };
  rules.gitlab_checkbox = (toks, i, _options, env?: unknown) =>
    (env as RenderEnv).slot(`<input type="checkbox" class="task-list-item-checkbox"${toks[i].meta?.checked ? " checked" : ""} disabled>`);
  // GitLab's SyntaxHighlightFilter markup. Differs from GitLab: code is not highlighted (no Rouge
  // token `<span>`s), only split into its lines.
  const code = (toks: Token[], i: number, _options: unknown, env?: unknown) => {
    const lang = (toks[i].info ?? "").trim().split(/\s+/)[0].toLowerCase() || "plaintext";
    const lines = toks[i].content.replace(/\n$/, "").split("\n");
    const body = lines.map((line: string, n: number) => `<span id="LC${n + 1}" class="line" lang="${escapeHtml(lang)}">${escapeHtml(line)}</span>`).join("\n");
    return (env as RenderEnv).slot(`<pre class="code highlight js-syntax-highlight language-${escapeHtml(lang)}" lang="${escapeHtml(lang)}" v-pre="true"><code>${body}</code></pre>`) + "\n";
  };
  rules.fence = code;
  rules.code_block = code;
  return md;
}

/** Emoji and references in text nodes (GitLab's EmojiFilter and reference filters). */
function installTextRule(md: MarkdownIt) {
  md.renderer.rules.text = (toks, i, _options, env?: unknown) => {
    const { slot, link } = env as RenderEnv;
    const segments = toks[i].meta?.segments as Segment[] | undefined;
    if (!segments) return escapeHtml(toks[i].content);
    return segments
      .map((s) => {
        if (typeof s === "string") return escapeHtml(s);
        if ("emoji" in s) {
          // GitLab's EmojiFilter. Differs from GitLab: no `data-unicode-version` (gemoji does not carry it).
          const e = EMOJI.get(s.emoji)!;
          return slot(`<gl-emoji title="${escapeHtml(e.description)}" data-name="${escapeHtml(s.emoji)}">${e.emoji}</gl-emoji>`);
        }
        const html = link(s.ref);
        return html === null ? escapeHtml(s.ref.original) : slot(html);
      })
      .join("");
  };
}

/**
 * GitLab's SingleLinePipeline (`cache_markdown_field … pipeline: :single_line`: label descriptions,
 * merge request titles): no Markdown at all, the text HTML-escaped (HtmlEntityFilter), then emoji,
 * autolinks and references.
 */
function singleLineEngine(): MarkdownIt {
  const md = markdownIt("zero", { linkify: true }).enable(["linkify", "newline"]);
  installTextRule(md);
  return md;
}

/** `gfm`: GitLab Flavored Markdown; `plain`: GitLab's :plain_markdown (CommonMark and GFM's tables, strikethrough, autolinks); `single_line`: see `singleLineEngine`. */
export type MarkdownMode = "gfm" | "plain" | "single_line";
const engines: Record<MarkdownMode, MarkdownIt> = { gfm: engine(true), plain: engine(false), single_line: singleLineEngine() };

/** A text node split into plain strings, references and emoji (GitLab's filters run on text nodes only). */
type Segment = string | { ref: FoundRef } | { emoji: string };

const EMOJI_PATTERN = /:([a-z0-9_+-]+):/g;

function segmentsOf(text: string, refs: FoundRef[], withReferences: boolean): Segment[] | null {
  const marks: { index: number; length: number; segment: Segment }[] = [];
  // Characters an emoji covers; a reference overlapping one is not a reference (linear in the text).
  let covered: Uint8Array | null = null;
  for (const m of text.matchAll(EMOJI_PATTERN)) {
    if (!EMOJI.has(m[1])) continue;
    marks.push({ index: m.index!, length: m[0].length, segment: { emoji: m[1] } });
    (covered ??= new Uint8Array(text.length)).fill(1, m.index!, m.index! + m[0].length);
  }
  if (withReferences) {
    for (const ref of findReferences(text)) {
      if (covered && (covered[ref.index] || covered[ref.index + ref.original.length - 1])) continue;
      refs.push(ref);
      marks.push({ index: ref.index, length: ref.original.length, segment: { ref } });
    }
  }
  if (marks.length === 0) return null;
  marks.sort((a, b) => a.index - b.index);
  const segments: Segment[] = [];
  let at = 0;
  for (const mark of marks) {
    if (mark.index < at) continue;
    if (mark.index > at) segments.push(text.slice(at, mark.index));
    segments.push(mark.segment);
    at = mark.index + mark.length;
  }
  if (at < text.length) segments.push(text.slice(at));
  return segments;
}

/** GitLab's TableOfContentsFilter id: lower case, punctuation dropped, spaces to hyphens, runs of hyphens squeezed. */
function anchorId(text: string): string {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-").replace(/-+/g, "-");
}

function inlineText(token: Token | undefined): string {
  return (token?.children ?? []).map((child: Token) => (child.type === "text" || child.type === "code_inline" ? child.content : "")).join("");
}

export type Parsed = {
  /** The references found, in order; `finish` asks for each one's link. */
  references: FoundRef[];
  /** The sanitised HTML; `link(ref)` is a resolved reference's HTML, or null to leave it as text. */
  finish(link: (ref: FoundRef) => string | null): string;
};

/** Parse `text` in one of the modes; `gfm` and `single_line` resolve emoji and references. */
export function parseMarkdown(text: string, mode: MarkdownMode, withReferences: boolean): Parsed {
  const md = engines[mode];
  const gfm = mode !== "plain";
  const source = text.replace(/[\uE000\uE001]/g, "\uFFFD");
  const env = {};
  const tokens = mode === "single_line" ? md.parseInline(source, env) : md.parse(source, env);
  const references: FoundRef[] = [];
  if (gfm) {
    for (const block of tokens) {
      if (block.type !== "inline" || !block.children) continue;
      let inLink = 0;
      for (const child of block.children) {
        if (child.type === "link_open") inLink++;
        else if (child.type === "link_close") inLink--;
        // Text inside links is not scanned for references (GitLab's filters skip `a` elements); image
        // alt texts are attributes, never scanned.
        else if (child.type === "text") {
          const segments = segmentsOf(child.content, references, withReferences && inLink === 0);
          if (segments) child.meta = { segments };
        }
      }
    }
  }
  return {
    references,
    finish(link) {
      const nonce = crypto.getRandomValues(new Uint32Array(2)).join("-");
      const fragments: string[] = [];
      const renderEnv: RenderEnv = { slot: (html) => `${OPEN}${nonce}:${fragments.push(html) - 1}${CLOSE}`, link, anchors: new Map() };
      const html = sanitize(md.renderer.render(tokens, md.options, { ...env, ...renderEnv }));
      const pattern = new RegExp(`${OPEN}${nonce}:(\\d+)${CLOSE}`, "g");
      // Banzai's HTML ends with its last element, without the renderer's final line break.
      return html.replace(pattern, (_, n: string) => fragments[Number(n)] ?? "").replace(/\n$/, "");
    },
  };
}

/**
 * GitLab's SanitizationFilter allow-list (lib/banzai/filter/sanitization_filter.rb over
 * html-pipeline's WHITELIST): these elements and attributes, nothing else. Elements outside the list
 * are dropped with their tags (their text stays), `script`, `style` and friends with their content.
 */
const COMMON = ["abbr", "align", "alt", "axis", "border", "cellpadding", "cellspacing", "char", "charoff", "clear", "colspan", "color", "compact", "datetime", "dir", "frame", "headers", "height", "hreflang", "hspace", "lang", "nowrap", "open", "rel", "rev", "rowspan", "rules", "scope", "span", "start", "summary", "title", "type", "valign", "vspace", "width", "itemprop"];
const ELEMENTS = "h1 h2 h3 h4 h5 h6 h7 h8 br b i strong em a pre code img tt div ins del sup sub p ol ul table thead tbody tfoot blockquote dl dt dd kbd q samp var hr ruby rt rp li tr td th s strike summary details caption figure figcaption abbr bdo cite dfn mark small span time wbr".split(" ");
const EXTRA: Record<string, string[]> = {
  a: ["href", "name"],
  img: ["src", "longdesc"],
  div: ["itemscope", "itemtype"],
  blockquote: ["cite"],
  del: ["cite"],
  ins: ["cite"],
  q: ["cite"],
  ul: ["class"],
  ol: ["class"],
  li: ["class"],
};
const WHITE_LIST: Record<string, string[]> = Object.fromEntries(ELEMENTS.map((tag) => [tag, [...COMMON, ...(EXTRA[tag] ?? [])]]));

/** Schemes a link may use; anything else (javascript:, vbscript:, data:, …) is dropped (SanitizationFilter#remove_unsafe_links). */
const SAFE_SCHEMES = new Set(["http", "https", "mailto", "ftp", "tel", "irc", "ircs", "ssh", "git", "news", "xmpp", "smb"]);

function safeUrl(value: string): boolean {
  // What a browser would read: entities decoded, control characters and whitespace gone.
  // eslint-disable-next-line no-control-regex
  const plain = friendlyAttrValue(value).replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g, "");
  const scheme = /^([^/?#]*?):/.exec(plain);
  if (!scheme) return true;
  return SAFE_SCHEMES.has(scheme[1].toLowerCase());
}

const filter = new FilterXSS({
  whiteList: WHITE_LIST,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ["script", "style", "noscript", "iframe", "object", "embed", "template", "textarea", "xmp", "noembed", "noframes", "plaintext"],
  allowCommentTag: false,
  css: false,
  // An attribute this answers "" for is dropped; undefined leaves it to the allow-list and escaping.
  onTagAttr(tag, name, value) {
    if (name === "href" || name === "src" || name === "longdesc" || name === "cite" || name === "itemtype") {
      return safeUrl(value) ? `${name}="${escapeAttrValue(friendlyAttrValue(value).trim())}"` : "";
    }
    // GitLab's TaskListFilter classes only.
    if (name === "class") return ((tag === "ul" || tag === "ol") && value === "task-list") || (tag === "li" && value === "task-list-item") ? `class="${value}"` : "";
    return undefined;
  },
});

/** The allow-list applied to HTML (the renderer's output; also usable on its own). */
export function sanitize(html: string): string {
  return filter.process(html);
}
