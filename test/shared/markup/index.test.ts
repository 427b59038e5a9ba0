// functions/shared/markup/index.ts: the formats it does not convert, and MarkupHelper's fallback.
import { describe, expect, it } from "vitest";
import { renderMarkup, simpleFormat } from "../../../functions/shared/markup";

// Formats other than Markdown and AsciiDoc never touch the database or the request.
const scope = { db: undefined as never, baseUrl: "http://localhost" };

describe("renderMarkup", () => {
  it("shows the markups it does not convert as escaped text in a <pre>", async () => {
    for (const format of ["textile", "creole", "rest", "mediawiki", "pod", "plaintext"]) {
      expect(await renderMarkup(scope, format, 'h1. <script>alert("x")</script> & co')).toBe('<pre>h1. &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co</pre>');
    }
  });

  it("sanitises RDoc and Org output with the Markdown renderer's allow-list", async () => {
    expect(await renderMarkup(scope, "rdoc", "{x}[https://a.example/\"onmouseover=\"alert(1)]")).not.toMatch(/onmouseover="/);
    const org = await renderMarkup(scope, "org", '#+BEGIN_EXPORT html\n<b onclick="x">b</b>\n#+END_EXPORT\n[[javascript:alert(1)][j]] [[https://ok.example][ok]]');
    expect(org).not.toMatch(/<[^>]*(onclick=|href="javascript:)/);
    expect(org).toContain("&#x3C;b onclick=");
    expect(org).toContain('<a href="https://ok.example">ok</a>');
  });
});

describe("simpleFormat", () => {
  it("is ActionView's simple_format: paragraphs on blank lines, <br /> on line breaks, escaped", () => {
    expect(simpleFormat("a\nb\n\n\n<c>")).toBe("<p>a\n<br />b</p>\n\n<p>&lt;c&gt;</p>");
    expect(simpleFormat("")).toBe("<p></p>");
  });
});
