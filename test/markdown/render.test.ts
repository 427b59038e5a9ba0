import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMarkdown, type MarkdownMode } from "../../functions/shared/markdown/engine";
import { findReferences } from "../../functions/shared/markdown/references";

/** The renderer's engine alone (functions/shared/markdown/engine.ts): no database, references given by the test. */
const render = (text: string, link: (original: string) => string | null = () => null, mode: MarkdownMode = "gfm") =>
  parseMarkdown(text, mode, true).finish((ref) => link(ref.original));

/** Every attribute of every tag of the HTML, as [tag, name, decoded value]. */
function attributes(html: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const tag of html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    for (const attr of tag[2].matchAll(/([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
      const raw = attr[2] ?? attr[3] ?? attr[4] ?? "";
      const decoded = raw
        .replace(/&#x([0-9a-f]+);?/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
        .replace(/&#(\d+);?/g, (_, d) => String.fromCodePoint(Number(d)))
        .replace(/&colon;/gi, ":")
        .replace(/&tab;|&newline;/gi, "");
      out.push([tag[1].toLowerCase(), attr[1].toLowerCase(), decoded]);
    }
  }
  return out;
}

const PIECES = [
  "<script>window.x=1</script>",
  "<SCRIPT src=//e.com/x.js></SCRIPT>",
  '<img src=x onerror="alert(1)">',
  "<img src=x onerror=alert(1)//",
  '<a href="javascript:alert(1)">a</a>',
  '<a href="jav&#x09;ascript:alert(1)">a</a>',
  '<a href="&#106;avascript:alert(1)">a</a>',
  "<a href=' javascript:alert(1)'>a</a>",
  '<svg onload="alert(1)"><circle/></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<div style="background:url(javascript:alert(1))" onclick="x()">d</div>',
  "[x](javascript:alert(1))",
  "![i](javascript:alert(1))",
  "[x](  JaVaScRiPt:alert(1) )",
  "<javascript:alert(1)>",
  "<details open ontoggle=alert(1)>",
  '<a href="data:text/html;base64,PHNjcmlwdD4=">d</a>',
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  "<!--><script>alert(1)</script>-->",
  "`<script>`",
  "```\n<script>\n```",
  "#1",
  "~\"a<b\"",
  "@user",
  "\uE000",
  "&#xE000;0:0&#xE001;",
  ":smile:",
  "- [ ] ",
  "# ",
  "| a |\n|---|\n| <b onmouseover=x> |",
  "\n",
  " ",
  "<",
  ">",
  '"',
  "'",
  "=",
];

describe("the Markdown renderer (shared/markdown/engine.ts)", () => {
  it("never emits a script element, an event handler attribute or a javascript: URL, whatever the input", () => {
    const input = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 8 })), { maxLength: 12 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(input, fc.constantFrom<MarkdownMode>("gfm", "plain", "single_line"), (text, mode) => {
        // References resolve to a link carrying the text as written, as the real ones do (escaped).
        const html = render(text, (original) => `<a href="/x" title="${original.replace(/[&<>"']/g, "")}">ref</a>`, mode);
        expect(html).not.toMatch(/<\s*script/i);
        for (const [tag, name, value] of attributes(html)) {
          expect(name, `${tag} ${name} in ${html}`).not.toMatch(/^on/);
          // eslint-disable-next-line no-control-regex
          const plain = value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase();
          expect(plain, `${tag} ${name} in ${html}`).not.toMatch(/^(javascript|vbscript|data|livescript):/);
        }
      }),
      { numRuns: 600, seed: 20261207 },
    );
  });

  it("keeps GitLab's allowed tags and drops the rest, keeping their text", () => {
    expect(render('<kbd>Ctrl</kbd> <marquee>m</marquee> <span class="evil" title="t">s</span>')).toBe('<p><kbd>Ctrl</kbd> m <span title="t">s</span></p>');
    expect(render("<details><summary>S</summary>body</details>")).toBe("<details><summary>S</summary>body</details>");
  });

  it("gives headings GitLab's anchors: lower case, punctuation dropped, repeated ids numbered", () => {
    const html = render("# Été 2024: notes!\n## Été 2024: notes!\n### `code` and *em*");
    expect(html).toContain('<a id="user-content-été-2024-notes" class="anchor" href="#été-2024-notes" aria-hidden="true"></a>Été 2024: notes!</h1>');
    expect(html).toContain('href="#été-2024-notes-1"');
    expect(html).toContain('<a id="user-content-code-and-em" class="anchor" href="#code-and-em" aria-hidden="true"></a><code>code</code> and <em>em</em></h3>');
  });

  it("renders emoji as gl-emoji and leaves unknown names as text", () => {
    expect(render(":smile: :not_an_emoji:")).toBe('<p><gl-emoji title="grinning face with smiling eyes" data-name="smile">😄</gl-emoji> :not_an_emoji:</p>');
    expect(render(":smile:", () => null, "plain")).toBe("<p>:smile:</p>");
  });

  it("renders single-line text as GitLab's SingleLinePipeline: escaped, no Markdown, with emoji, autolinks and references", () => {
    expect(render("**not bold** <b>x</b> & :tada: #1 http://e.com/a", (original) => `<a class="gfm">${original}</a>`, "single_line")).toBe(
      '**not bold** &lt;b&gt;x&lt;/b&gt; &amp; <gl-emoji title="party popper" data-name="tada">🎉</gl-emoji> <a class="gfm">#1</a> <a href="http://e.com/a">http://e.com/a</a>',
    );
  });

  it("looks for references in text only: not in code, links or image alt texts", () => {
    const seen: string[] = [];
    render("#1 `#2` [#3](http://e.com) ![#4](i.png)\n\n    #5\n\nhttp://e.com/#6", (original) => (seen.push(original), null));
    expect(seen).toEqual(["#1"]);
  });

  it("cannot be made to inject a fragment through a spelled placeholder", () => {
    const html = render('[t](http://a "&#xE000;0:0&#xE001;") &#xE000;1:0&#xE001; \uE0000:0\uE001 #1', () => '<b onclick="x">ref</b>');
    // Only the one real reference becomes the fragment.
    expect(html.match(/onclick/g)?.length).toBe(1);
    expect(html).not.toMatch(/title="[^"]*</);
  });
});

describe("references in text (shared/markdown/references.ts)", () => {
  const found = (text: string) => findReferences(text).map((r) => [r.kind, r.path, r.key, r.original]);

  it("finds GitLab's reference forms", () => {
    expect(found('#12 !3 ~bug ~"two words" ~7 %v1.0 %"big one" %4 @alice a/b#1 g/s/p!2 g/p~x g/p@abcdef12 deadbeef0')).toEqual([
      ["issue", null, "12", "#12"],
      ["merge_request", null, "3", "!3"],
      ["label", null, "bug", "~bug"],
      ["label", null, "two words", '~"two words"'],
      ["label", null, "7", "~7"],
      ["milestone", null, "v1.0", "%v1.0"],
      ["milestone", null, "big one", '%"big one"'],
      ["milestone", null, "4", "%4"],
      ["user", null, "alice", "@alice"],
      ["issue", "a/b", "1", "a/b#1"],
      ["merge_request", "g/s/p", "2", "g/s/p!2"],
      ["label", "g/p", "x", "g/p~x"],
      ["commit", "g/p", "abcdef12", "g/p@abcdef12"],
      ["commit", null, "deadbeef0", "deadbeef0"],
    ]);
  });

  it("ignores what is part of a word, an e-mail address or a sentence's final punctuation", () => {
    expect(found("foo#1 a@b.com x~y 50%off")).toEqual([]);
    expect(found("thanks @bob. see ~bug.")).toEqual([
      ["user", null, "bob", "@bob"],
      ["label", null, "bug", "~bug"],
    ]);
  });
});
