// The hand-written RDoc renderer (functions/shared/markup/rdoc.ts) against RDoc::Markup::ToHtml's
// output for the markup's core, before the sanitiser.
import { describe, expect, it } from "vitest";
import { inline, rdocToHtml } from "../../../functions/shared/markup/rdoc";

describe("rdocToHtml", () => {
  it("writes headings with RDoc's label anchors, paragraphs with their lines joined, and rules", () => {
    expect(rdocToHtml("= Top title\n\nOne line\nand the next.\n\n---\n=== Third")).toBe(
      [
        '<h1 id="label-Top+title">Top title<span><a href="#label-Top+title">&para;</a> <a href="#top">&uarr;</a></span></h1>',
        "<p>One line and the next.</p>",
        "<hr>",
        '<h3 id="label-Third">Third<span><a href="#label-Third">&para;</a> <a href="#top">&uarr;</a></span></h3>',
      ].join("\n"),
    );
  });

  it("writes bullet, numbered, lettered, labelled and note lists, nested by indentation, with continuation lines", () => {
    expect(rdocToHtml("* one\n* two\n  continued\n  - nested")).toBe("<ul>\n<li><p>one</p></li>\n<li><p>two continued</p>\n<ul>\n<li><p>nested</p></li>\n</ul></li>\n</ul>");
    expect(rdocToHtml("1. first\n2. second")).toBe("<ol>\n<li><p>first</p></li>\n<li><p>second</p></li>\n</ol>");
    expect(rdocToHtml("a. first")).toBe('<ol style="list-style-type: lower-alpha">\n<li><p>first</p></li>\n</ol>');
    expect(rdocToHtml("[cat] small\n[dog]\n  larger")).toBe('<dl class="rdoc-list label-list">\n<dt>cat</dt>\n<dd><p>small</p></dd>\n<dt>dog</dt>\n<dd><p>larger</p></dd>\n</dl>');
    expect(rdocToHtml("term:: its note")).toBe('<dl class="rdoc-list note-list">\n<dt>term</dt>\n<dd><p>its note</p></dd>\n</dl>');
    // A different kind of list starts a new list.
    expect(rdocToHtml("* a\n1. b")).toBe("<ul>\n<li><p>a</p></li>\n</ul>\n<ol>\n<li><p>b</p></li>\n</ol>");
  });

  it("writes indented blocks as verbatim, dedented, blank lines inside kept, escaped", () => {
    expect(rdocToHtml("Code:\n\n  def x\n\n    <b>1</b>\n  end\n\nAfter.")).toBe("<p>Code:</p>\n<pre>def x\n\n  &lt;b&gt;1&lt;/b&gt;\nend</pre>\n<p>After.</p>");
  });

  it("marks up words, tags, links and URLs, and escapes everything else", () => {
    const cases: [string, string][] = [
      ["*bold* _em_ +code+", "<strong>bold</strong> <em>em</em> <code>code</code>"],
      ["a*b*c snake_case_name 1+2+3", "a*b*c snake_case_name 1+2+3"],
      ["<b>two words</b> <em>x</em> <i>y</i> <tt>*z*</tt>", "<strong>two words</strong> <em>x</em> <em>y</em> <code>*z*</code>"],
      ["{the site}[https://example.com/a?b=1&c=2]", '<a href="https://example.com/a?b=1&amp;c=2">the site</a>'],
      ["RDoc[https://ruby.github.io/rdoc] {home}[link:index.html] {w}[www.example.com]", '<a href="https://ruby.github.io/rdoc">RDoc</a> <a href="index.html">home</a> <a href="http://www.example.com">w</a>'],
      ["see https://gitlab.com/x. or mailto:a@b.c", 'see <a href="https://gitlab.com/x">https://gitlab.com/x</a>. or <a href="mailto:a@b.c">mailto:a@b.c</a>'],
      ["\\*not bold* <script>alert(1)</script> \"q\"", "*not bold* &lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot;"],
      // Only RDoc's hyperlink schemes make links.
      ["{x}[javascript:alert(1)]", "{x}[javascript:alert(1)]"],
    ];
    for (const [input, html] of cases) expect([input, inline(input)]).toEqual([input, html]);
  });
});
