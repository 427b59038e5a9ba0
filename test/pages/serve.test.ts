import { env } from "cloudflare:test";
import { gzipSync, strToU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { pagesProject, pagesProjectAt, published, runPagesJob, siteOf, visit } from "./support";

const bucket = (env as unknown as { BLOBS: R2Bucket }).BLOBS;

const SITE = {
  "index.html": "<h1>home</h1>",
  "docs/index.html": "<h1>docs</h1>",
  "about.html": "<h1>about</h1>",
  "404.html": "<h1>custom not found</h1>",
  "app.js": "console.log(1)",
  "style.css": "body { color: red }",
  "style.css.gz": gzipSync(strToU8("body { color: red }")),
  "data.bin": "xx",
};

describe("GET <namespace>.<PAGES_DOMAIN>/<project>/… (a published site)", () => {
  it("serves index.html, files with their content types, ETag and 304, Cache-Control, directories and 404.html", async () => {
    const w = await world();
    const { api, project, runner } = await pagesProject(w);
    await runPagesJob(runner.token, api, project.id, SITE);
    const settings = await published(api, project.id);
    const { host, prefix } = siteOf(project.fullPath);
    expect(settings.url).toBe(`http://${host}${prefix}`);

    const home = await visit(host, `${prefix}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(home.headers.get("cache-control")).toBe("max-age=600");
    expect(await home.text()).toBe("<h1>home</h1>");
    const etag = home.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);

    const again = await visit(host, `${prefix}/`, { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await visit(host, `${prefix}/index.html`, { "If-None-Match": '"other"' })).status).toBe(200);

    const js = await visit(host, `${prefix}/app.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await visit(host, `${prefix}/data.bin`)).headers.get("content-type")).toBe("application/octet-stream");

    // A directory without its slash redirects; a name without .html finds the .html file.
    const docs = await visit(host, `${prefix}/docs`);
    expect(docs.status).toBe(302);
    expect(docs.headers.get("location")).toBe(`${prefix}/docs/`);
    expect(await (await visit(host, `${prefix}/docs/`)).text()).toBe("<h1>docs</h1>");
    expect(await (await visit(host, `${prefix}/about`)).text()).toBe("<h1>about</h1>");

    const missing = await visit(host, `${prefix}/nothing/here.png`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("<h1>custom not found</h1>");
    // Files outside public/ are not published.
    expect((await visit(host, `${prefix}/other.txt`)).status).toBe(404);
    // Only GET and HEAD.
    expect((await visit(host, `${prefix}/`, {}, "POST")).status).toBe(405);
    const head = await visit(host, `${prefix}/`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String("<h1>home</h1>".length));
  });

  it("serves the .gz variant with Content-Encoding: gzip to clients that accept gzip", async () => {
    const w = await world();
    const { api, project, runner } = await pagesProject(w);
    await runPagesJob(runner.token, api, project.id, SITE);
    await published(api, project.id);
    const { host, prefix } = siteOf(project.fullPath);
    const plain = await visit(host, `${prefix}/style.css`);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    expect(await plain.text()).toBe("body { color: red }");
    const gz = await visit(host, `${prefix}/style.css`, { "Accept-Encoding": "gzip, br" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("content-type")).toBe("text/css; charset=utf-8");
    // workerd's fetch decodes the gzip body for the caller: it reads back as the CSS only if the stored
    // gzip bytes went out as they are (test/e2e/pages.test.mjs checks the raw bytes with curl).
    expect(await gz.text()).toBe("body { color: red }");
    expect(gz.headers.get("etag")).not.toBe(plain.headers.get("etag"));
  });

  it("answers a plain 404 for unknown namespaces, projects without a site and nested subdomains", async () => {
    const w = await world();
    const { project } = await pagesProject(w);
    const { host, prefix } = siteOf(project.fullPath);
    const none = await visit(host, `${prefix}/`);
    expect(none.status).toBe(404);
    expect(none.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect((await visit(`nobody-here-${Date.now()}.pages.localhost`, "/x/")).status).toBe(404);
    expect((await visit(`a.${host}`, `${prefix}/`)).status).toBe(404);
  });

  it("serves the namespace's root project <namespace>.<PAGES_DOMAIN> at the host's root", async () => {
    const w = await world();
    const owner = await w.user();
    const ns = owner.username.toLowerCase();
    const { api, project, runner } = await pagesProjectAt(w, owner, `${ns}.pages.localhost`);
    await runPagesJob(runner.token, api, project.id, { "index.html": "root site", "x/index.html": "x" });
    const settings = await published(api, project.id);
    expect(settings.url).toBe(`http://${ns}.pages.localhost`);
    expect(await (await visit(`${ns}.pages.localhost`, "/")).text()).toBe("root site");
    expect(await (await visit(`${ns}.pages.localhost`, "/x/")).text()).toBe("x");
  });

  it("publishes atomically: a new job's site replaces the old one and the old files are deleted", async () => {
    const w = await world();
    const { api, project, runner } = await pagesProject(w);
    await runPagesJob(runner.token, api, project.id, { "index.html": "v1", "old.html": "old" });
    await published(api, project.id);
    const before = await bucket.list({ prefix: `pages/${project.id}/` });
    expect(before.objects.map((o) => o.key.split("/").slice(3).join("/")).sort()).toEqual(["index.html", "old.html"]);
    await runPagesJob(runner.token, api, project.id, { "index.html": "v2" });
    const { host, prefix } = siteOf(project.fullPath);
    let text = "";
    for (let i = 0; i < 300 && text !== "v2"; i++) {
      text = await (await visit(host, `${prefix}/`)).text();
      // Every answer is the old site or the new one.
      expect(["v1", "v2"]).toContain(text);
      if (text !== "v2") await new Promise((r) => setTimeout(r, 100));
    }
    expect(text).toBe("v2");
    expect((await visit(host, `${prefix}/old.html`)).status).toBe(404);
    const after = await bucket.list({ prefix: `pages/${project.id}/` });
    expect(after.objects.map((o) => o.key.split("/").slice(3).join("/"))).toEqual(["index.html"]);
  });
});

describe("GET <namespace>.<PAGES_DOMAIN>/<project>/… (access control)", () => {
  it("serves a private project's site to members only, with a personal access token", async () => {
    const w = await world();
    const guest = await w.user();
    const stranger = await w.user();
    const { api, project, runner } = await pagesProject(w, { visibility: "private", guests: [guest] });
    await runPagesJob(runner.token, api, project.id, { "index.html": "secret" });
    await published(api, project.id);
    const { host, prefix } = siteOf(project.fullPath);
    const anonymous = await visit(host, `${prefix}/`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain("secret");
    expect((await visit(host, `${prefix}/`, { "PRIVATE-TOKEN": stranger.token })).status).toBe(404);
    const member = await visit(host, `${prefix}/?private_token=${guest.token}`);
    expect(member.status).toBe(200);
    expect(member.headers.get("cache-control")).toBe("private, no-store");
    expect(await member.text()).toBe("secret");
    expect((await visit(host, `${prefix}/`, { "PRIVATE-TOKEN": guest.token })).status).toBe(200);
    expect((await visit(host, `${prefix}/`, { "PRIVATE-TOKEN": "glpat-not-a-token" })).status).toBe(401);
  });

  it("follows pages_access_level: private on a public project, disabled, public on a private project", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project, runner } = await pagesProject(w, { developers: [developer] });
    await runPagesJob(runner.token, api, project.id, { "index.html": "site" });
    await published(api, project.id);
    const { host, prefix } = siteOf(project.fullPath);
    expect((await visit(host, `${prefix}/`)).status).toBe(200);

    const set = async (level: string) => {
      const res = await api.put(`/projects/${project.id}`, { json: { pages_access_level: level } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { pages_access_level: string }).pages_access_level).toBe(level);
    };
    await set("private");
    expect((await visit(host, `${prefix}/`)).status).toBe(401);
    expect((await visit(host, `${prefix}/`, { "PRIVATE-TOKEN": developer.token })).status).toBe(200);
    await set("disabled");
    expect((await visit(host, `${prefix}/`, { "PRIVATE-TOKEN": developer.token })).status).toBe(404);
    await api.put(`/projects/${project.id}`, { json: { visibility: "private" } });
    await set("public");
    expect(await (await visit(host, `${prefix}/`)).text()).toBe("site");
    const bad = await api.put(`/projects/${project.id}`, { json: { pages_access_level: "everyone" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "pages_access_level does not have a valid value" });
  });
});
