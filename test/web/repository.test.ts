import { describe, expect, it } from "vitest";
import { BASE, worker } from "../helpers/client";
import { commitTo, smallRepo } from "../helpers/git";
import { world } from "../helpers/world";
import { browser, setPassword } from "./support";

const PASSWORD = "correct horse battery";
const get = (path: string) => worker.fetch(new Request(`${BASE}${path}`, { redirect: "manual" }));

describe("GET /:namespace/:project", () => {
  it("shows the README rendered, the clone URL, the last commit and the languages", async () => {
    const w = await world();
    const { project, commits } = await smallRepo(w, { visibility: "public" });
    await commitTo(project, "main", [{ action: "update", filePath: "README.md", content: "# Hello **bold**\n\n<script>alert(1)</script>\n" }], { message: "Readme with markup" });
    const res = await get(`/${project.fullPath}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<strong>bold</strong>");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain(`${BASE}/${project.fullPath}.git`);
    expect(html).toContain("Readme with markup");
    expect(html).toMatch(/JavaScript [\d.]+%/);
    expect(html).toContain(`href="/${project.fullPath}/-/tree/main/src"`);
    expect(commits.first).toMatch(/^[0-9a-f]{40}$/);
    // The page is one document (its style inline, no script): it weighs what its HTML does.
    expect(new TextEncoder().encode(html).length).toBeLessThan(100_000);
    expect(html).not.toContain("<script");
  });

  it("answers the HTML 404 for a private project to anonymous visitors and outsiders, and shows it to members", async () => {
    const w = await world();
    const { project, owner } = await smallRepo(w, { visibility: "private" });
    const outsider = await w.user();
    await setPassword(outsider.id, PASSWORD);
    await setPassword(owner.id, PASSWORD);
    for (const path of [`/${project.fullPath}`, `/${project.fullPath}/-/tree/main`, `/${project.fullPath}/-/blob/main/README.md`, `/${project.fullPath}/-/commits/main`, `/${project.fullPath}/-/raw/main/README.md`]) {
      const anonymous = await get(path);
      expect(anonymous.status, path).toBe(404);
      expect(await anonymous.text()).toContain("404: Page not found");
      const b = browser();
      await b.signIn(outsider.username, PASSWORD);
      expect((await b.get(path)).status, path).toBe(404);
    }
    const member = browser();
    await member.signIn(owner.username, PASSWORD);
    const page = await member.get(`/${project.fullPath}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Update README");
  });
});

describe("GET /:project/-/tree/:ref/*path", () => {
  it("lists a directory, directories first, and resolves refs with slashes", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    await commitTo(project, "feature/deep", [{ action: "create", filePath: "docs/extra.txt", content: "x\n" }], { startBranch: "main", message: "On feature" });
    const root = await (await get(`/${project.fullPath}/-/tree/main`)).text();
    expect(root.indexOf(">bin/<")).toBeLessThan(root.indexOf(">README.md<"));
    const docs = await get(`/${project.fullPath}/-/tree/feature/deep/docs`);
    expect(docs.status).toBe(200);
    const html = await docs.text();
    expect(html).toContain(`href="/${project.fullPath}/-/blob/feature/deep/docs/extra.txt"`);
    expect(html).toContain("On feature");
    expect((await get(`/${project.fullPath}/-/tree/main/nope`)).status).toBe(404);
    expect((await get(`/${project.fullPath}/-/tree/no-such-ref`)).status).toBe(404);
  });
});

describe("GET /:project/-/blob/:ref/*path", () => {
  it("names a known language for the highlighter script, escapes the source and links the raw file", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    await commitTo(project, "main", [{ action: "create", filePath: "lib/x.ts", content: 'const a = "</code><script>alert(1)</script>";\n' }], { message: "ts" });
    const res = await get(`/${project.fullPath}/-/blob/main/lib/x.ts`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<code data-language="typescript">');
    expect(html).toMatch(/<script src="\/-\/web\/highlight.js" nonce="[^"]+" defer="">/);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-/);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain(`href="/${project.fullPath}/-/raw/main/lib/x.ts"`);
  });

  it("serves the raw file as plain text in a sandbox", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    await commitTo(project, "main", [{ action: "create", filePath: "page.html", content: "<script>alert(1)</script>" }], { message: "html" });
    const res = await get(`/${project.fullPath}/-/raw/main/page.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toMatch(/sandbox/);
    expect(await res.text()).toBe("<script>alert(1)</script>");
  });

  it("answers 404 for a directory or a missing file", async () => {
    const w = await world();
    const { project } = await smallRepo(w, { visibility: "public" });
    expect((await get(`/${project.fullPath}/-/blob/main/src`)).status).toBe(404);
    expect((await get(`/${project.fullPath}/-/blob/main/missing.txt`)).status).toBe(404);
  });
});

describe("GET /:project/-/commits/:ref and /-/commit/:sha", () => {
  it("lists the history newest first, follows a path, and shows a commit's diff", async () => {
    const w = await world();
    const { project, commits } = await smallRepo(w, { visibility: "public" });
    const list = await (await get(`/${project.fullPath}/-/commits/main`)).text();
    expect(list.indexOf("Update README")).toBeLessThan(list.indexOf("Add docs"));
    expect(list.indexOf("Add docs")).toBeLessThan(list.indexOf("Initial commit"));
    const docs = await (await get(`/${project.fullPath}/-/commits/main?path=docs`)).text();
    expect(docs).toContain("Add docs");
    expect(docs).not.toContain("Update README");
    const res = await get(`/${project.fullPath}/-/commit/${commits.third}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<code>README.md</code>");
    expect(html).toMatch(/<tr class="add"><td>\+world<\/td><\/tr>/);
    expect(html).toContain(`href="/${project.fullPath}/-/commit/${commits.second}"`);
    expect((await get(`/${project.fullPath}/-/commit/${"0".repeat(40)}`)).status).toBe(404);
  });
});
