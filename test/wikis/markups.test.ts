// Wiki pages in AsciiDoc, RDoc and Org rendered by `render_html` (functions/shared/markup/), through the
// API and the web page, and sanitised as Markdown is.
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

type Json = Record<string, any>;

async function setup() {
  const w = await world();
  const [guest, developer] = [await w.user(), await w.user()];
  const project = await w.project({ visibility: "private", guests: [guest], developers: [developer] });
  const base = `/projects/${project.id}/wikis`;
  const write = async (title: string, format: string, content: string) => {
    const res = await w.as(developer).post(base, { json: { title, content, format } });
    expect(res.status).toBe(201);
  };
  const rendered = async (slug: string, as = guest) => {
    const [status, body] = (await statusAndBody(await w.as(as).get(`${base}/${encodeURIComponent(slug)}`, { query: { render_html: true } }))) as [number, Json];
    expect(status).toBe(200);
    return body.content as string;
  };
  return { w, project, guest, developer, base, write, rendered };
}

/** What no rendered page may hold, whatever the markup let through. */
function expectSafe(html: string) {
  // Escaped markup (`&lt;script&gt;`) is text, harmless; elements and attributes are what must go.
  expect(html).not.toMatch(/<(script|iframe|style|object|embed)\b|<[^>]*\son\w+=|<[^>]*(href|src)="\s*javascript:/i);
}

describe("GET /projects/:id/wikis/:slug?render_html=true", () => {
  it("renders AsciiDoc: headings, emphasis, lists, links, listings and tables; passthrough HTML sanitised", async () => {
    const { write, rendered } = await setup();
    await write("Ascii page", "asciidoc", [
      "= Guide",
      "",
      "Intro with *bold*, _italic_, `mono` and https://example.com[a link].",
      "",
      "== Install",
      "",
      "* one",
      "* two",
      "",
      "[source,ruby]",
      "----",
      'puts "<hi>"',
      "----",
      "",
      "|===",
      "|A |B",
      "",
      "|1 |2",
      "|===",
      "",
      "++++",
      '<script>alert(1)</script><img src="x.png" onerror="alert(1)"><a href="javascript:alert(1)">j</a>',
      "++++",
      "",
      "link:javascript:alert(2)[bad]",
    ].join("\n"));
    const html = await rendered("Ascii-page");
    expect(html).toContain("<h1>Guide</h1>");
    expect(html).toContain("<h2>Install</h2>");
    expect(html).toContain('<p>Intro with <strong>bold</strong>, <em>italic</em>, <code>mono</code> and <a href="https://example.com">a link</a>.</p>');
    expect(html).toContain("<ul>\n<li>one</li>\n<li>two</li>\n</ul>");
    expect(html).toContain("<pre><code>puts &quot;&lt;hi&gt;&quot;\n</code></pre>");
    expect(html).toMatch(/<table>[\s\S]*<th>A<\/th>[\s\S]*<td>1<\/td>[\s\S]*<\/table>/);
    expect(html).toContain('<img src="x.png">');
    expect(html).toContain("<a>j</a>");
    // markdown-it refuses a javascript: destination, so downdoc's `[bad](javascript:…)` stays text.
    expect(html).toContain("<p>[bad](javascript:alert(2))</p>");
    expectSafe(html);
  });

  it("renders RDoc: headings, inline markup, lists, verbatim blocks and links; raw HTML stays text", async () => {
    const { write, rendered } = await setup();
    await write("Rdoc page", "rdoc", [
      "= Guide",
      "",
      "Some *bold*, _em_ and +code+, see {the docs}[https://example.com/docs].",
      "<script>alert(1)</script>",
      "",
      "* one",
      "* two",
      "",
      "[term] a labelled item",
      "",
      "         puts 1 < 2",
    ].join("\n"));
    const html = await rendered("Rdoc-page");
    expect(html).toBe(
      [
        // The sanitiser drops ids and classes, as GitLab's does.
        '<h1>Guide<span><a href="#label-Guide">&para;</a> <a href="#top">&uarr;</a></span></h1>',
        '<p>Some <strong>bold</strong>, <em>em</em> and <code>code</code>, see <a href="https://example.com/docs">the docs</a>. &lt;script&gt;alert(1)&lt;/script&gt;</p>',
        "<ul>\n<li><p>one</p></li>\n<li><p>two</p></li>\n</ul>",
        "<dl>\n<dt>term</dt>\n<dd><p>a labelled item</p>\n<pre>puts 1 &lt; 2</pre></dd>\n</dl>",
      ].join("\n"),
    );
    expectSafe(html);
  });

  it("renders Org: headlines, emphasis, lists, source blocks and links; export blocks and javascript: links neutralised", async () => {
    const { write, rendered } = await setup();
    await write("Org page", "org", [
      "* Guide",
      "Some *bold*, /italic/ and =verbatim=, see [[https://example.com][the site]] and [[javascript:alert(1)][bad]].",
      "** Steps",
      "- one",
      "- two",
      "#+BEGIN_SRC ruby",
      "puts 1",
      "#+END_SRC",
      "#+BEGIN_EXPORT html",
      '<script>alert(1)</script><img src="x" onerror="alert(1)">',
      "#+END_EXPORT",
    ].join("\n"));
    const html = await rendered("Org-page");
    expect(html).toContain("<h1>Guide</h1>");
    expect(html).toContain("<h2>Steps</h2>");
    expect(html).toContain('<strong>bold</strong>, <em>italic</em> and <code>verbatim</code>, see <a href="https://example.com">the site</a> and <a>bad</a>.');
    expect(html).toMatch(/<ul><li>one\s*<\/li><li>two\s*<\/li><\/ul>/);
    expect(html).toContain("<pre><code>puts 1\n</code></pre>");
    expectSafe(html);
  });

  it("keeps the raw text without render_html; a reader renders, a stranger to a private project gets 404", async () => {
    const { w, developer, write, rendered, base } = await setup();
    await write("Plain org", "org", "* Head");
    expect(await statusAndBody(await w.as(developer).get(`${base}/Plain-org`))).toEqual([200, { format: "org", slug: "Plain-org", title: "Plain org", content: "* Head", encoding: "UTF-8" }]);
    expect(await rendered("Plain-org")).toBe("<h1>Head</h1>");
    expect(await statusAndBody(await w.as(w.stranger).get(`${base}/Plain-org`, { query: { render_html: true } }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(developer).get(`${base}/Plain-org`, { query: { render_html: "maybe" } }))).toEqual([400, { error: "render_html is invalid" }]);
  });
});
