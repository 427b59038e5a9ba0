import { describe, expect, it } from "vitest";
import { world, type TestProject, type World } from "../helpers/world";
import { browser } from "./support";
import { signedIn } from "./signed_in";

async function wikiPage(w: World, project: TestProject, title: string, content: string) {
  const res = await w.root.post(`/projects/${project.id}/wikis`, { json: { title, content } });
  expect(res.status).toBe(201);
  return (await res.json()) as { slug: string };
}

describe("GET /:project/-/wikis/:slug", () => {
  it("shows the page rendered by the Markdown renderer, with the wiki tab, for an anonymous visitor of a public project", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const issue = await w.issue(project, { title: "Referenced" });
    await wikiPage(w, project, "Setup guide", `# Install\n\nSome **bold** text, see #${issue.iid}.\n\n- [x] done\n- [ ] todo\n`);
    const page = await browser().get(`/${project.fullPath}/-/wikis/Setup-guide`);
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.html).toContain("<h1>Setup guide</h1>");
    expect(page.html).toContain("<strong>bold</strong>");
    expect(page.html).toContain(`/${project.fullPath}/-/issues/${issue.iid}`);
    // markdownForPage: each task's checkbox is named by its text (axe-core's `label`).
    expect(page.html).toMatch(/class="task-list-item-checkbox"[^>]* aria-label="done">/);
    expect(page.html).toMatch(/class="task-list-item-checkbox"[^>]* aria-label="todo">/);
    // markdownForPage: the heading anchor leaves the tab order.
    expect(page.html).toMatch(/class="anchor" href="#install" aria-hidden="true" tabindex="-1"/);
    expect(page.html).toContain(`href="/${project.fullPath}/-/wikis" aria-current="page"`);
  });

  it("shows an RDoc page rendered and sanitised as the API's render_html", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const res = await w.root.post(`/projects/${project.id}/wikis`, { json: { title: "Web rdoc", content: "= Hello\n\n*bold* <script>alert(1)</script>", format: "rdoc" } });
    expect(res.status).toBe(201);
    const page = await browser().get(`/${project.fullPath}/-/wikis/Web-rdoc`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("<strong>bold</strong> &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.html).toContain('Hello<span><a href="#label-Hello">');
    expect(page.html).not.toContain("<script>alert");
  });

  it("finds a nested page by its slug and answers 404 for an unknown version_id", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    await wikiPage(w, project, "docs/Deep page", "first text");
    const put = await w.root.put(`/projects/${project.id}/wikis/docs%2FDeep-page`, { json: { content: "second text" } });
    expect(put.status).toBe(200);
    const b = browser();
    const now = await b.get(`/${project.fullPath}/-/wikis/docs/Deep-page`);
    expect(now.status).toBe(200);
    expect(now.html).toContain("second text");
    expect(now.html).not.toContain("first text");
    expect((await b.get(`/${project.fullPath}/-/wikis/docs/Deep-page?version_id=0000000`)).status).toBe(404);
  });

  it("answers the 404 page for a missing page, linking to the pages list", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    await wikiPage(w, project, "home", "Welcome");
    const page = await browser().get(`/${project.fullPath}/-/wikis/no-such-page`);
    expect(page.status).toBe(404);
    expect(page.html).toContain("This wiki page does not exist");
    expect(page.html).toContain(`href="/${project.fullPath}/-/wikis/pages"`);
  });

  it("hides a private project's wiki from anonymous visitors and outsiders (404 page), not from guests", async () => {
    const w = await world();
    const guest = await w.user();
    const project = await w.project({ visibility: "private", guests: [guest] });
    await wikiPage(w, project, "Secret plans", "Top secret text");
    const path = `/${project.fullPath}/-/wikis/Secret-plans`;
    for (const url of [path, `/${project.fullPath}/-/wikis/pages`, `/${project.fullPath}/-/wikis`]) {
      const anonymous = await browser().get(url);
      expect(anonymous.status).toBe(404);
      expect(anonymous.html).not.toContain("Top secret");
      expect(anonymous.html).not.toContain("Secret plans");
    }
    const outsider = await (await signedIn(await w.user())).get(path);
    expect(outsider.status).toBe(404);
    expect(outsider.html).not.toContain("Top secret");
    const member = await (await signedIn(guest)).get(path);
    expect(member.status).toBe(200);
    expect(member.html).toContain("Top secret text");
  });

  it("answers the 404 page when the project's wiki is disabled, even to its owner", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    await wikiPage(w, project, "home", "Welcome");
    expect((await w.root.put(`/projects/${project.id}`, { json: { wiki_enabled: false } })).status).toBe(200);
    const page = await browser().get(`/${project.fullPath}/-/wikis/home`);
    expect(page.status).toBe(404);
    expect(page.html).not.toContain("Welcome");
  });

  it("escapes a page's title and keeps script out of its content", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    await wikiPage(w, project, `Evil <img src=x onerror=alert(1)>`, `<script>alert(2)</script>\n\n<img src=x onerror="alert(3)">`);
    const list = await browser().get(`/${project.fullPath}/-/wikis/pages`);
    expect(list.status).toBe(200);
    expect(list.html).not.toMatch(/<[^>]*\sonerror=/);
    const link = /href="(\/[^"]*\/-\/wikis\/Evil[^"]*)"/.exec(list.html);
    expect(link).not.toBeNull();
    const page = await browser().get(link![1].replace(/&amp;/g, "&"));
    expect(page.status).toBe(200);
    expect(page.html).not.toContain("<script>alert(2)");
    expect(page.html).not.toMatch(/<[^>]*\sonerror=/);
  });
});

describe("GET /:project/-/wikis and /-/wikis/pages", () => {
  it("redirects to the home page when there is one, else to the pages list", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const b = browser();
    const empty = await b.get(`/${project.fullPath}/-/wikis`);
    expect(empty.status).toBe(302);
    expect(empty.res.headers.get("location")).toBe(`/${project.fullPath}/-/wikis/pages`);
    const list = await b.get(`/${project.fullPath}/-/wikis/pages`);
    expect(list.status).toBe(200);
    expect(list.html).toContain("This wiki has no pages.");
    await wikiPage(w, project, "home", "Welcome");
    const withHome = await b.get(`/${project.fullPath}/-/wikis`);
    expect(withHome.status).toBe(302);
    expect(withHome.res.headers.get("location")).toBe(`/${project.fullPath}/-/wikis/home`);
  });

  it("lists every page in path order", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    for (const title of ["zeta", "Alpha page", "dir/Nested page"]) await wikiPage(w, project, title, "text");
    const list = await browser().get(`/${project.fullPath}/-/wikis/pages`);
    expect(list.status).toBe(200);
    const links = [...list.html.matchAll(/href="\/[^"]*\/-\/wikis\/([^"]+)"/g)].map((m) => m[1]).filter((s) => s !== "pages");
    expect(links).toEqual(["Alpha-page", "dir/Nested-page", "zeta"]);
  });
});
