import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { queryCount } from "../helpers/api";
import { rows } from "../helpers/db";
import { world, type TestProject, type World } from "../helpers/world";

type Json = Record<string, any>;

const wikiOf = async (w: World, project: TestProject) =>
  (await rows<{ id: number; default_branch: string }>(w, sql`SELECT id, default_branch FROM wikis WHERE project_id = ${project.id}`))[0] ?? null;

/** The commits on the wiki's default branch, newest first (its repository is keyed by minus its id). */
async function wikiCommits(w: World, project: TestProject) {
  const wiki = await wikiOf(w, project);
  return rows<{ message: string; author_name: string; author_email: string; committer_name: string }>(
    w,
    sql`SELECT c.message, c.author_name, c.author_email, c.committer_name FROM git_commits c
         WHERE c.pool_id = ${-wiki!.id} ORDER BY c.generation DESC`,
  );
}

async function setup(visibility: "private" | "internal" | "public" = "private") {
  const w = await world();
  const [guest, reporter, developer, maintainer] = [await w.user(), await w.user(), await w.user(), await w.user()];
  const project = await w.project({ visibility, guests: [guest], reporters: [reporter], developers: [developer], maintainers: [maintainer] });
  const api = (u: typeof guest) => w.as(u);
  const base = `/projects/${project.id}/wikis`;
  return { w, project, guest, reporter, developer, maintainer, api, base };
}

describe("GET /projects/:id/wikis", () => {
  it("lists [] for a wiki never written (no repository is created), then every page in path order, with content on request", async () => {
    const { w, project, guest, developer, api, base } = await setup();
    expect(await statusAndBody(await api(guest).get(base))).toEqual([200, []]);
    expect(await wikiOf(w, project)).toBeNull();
    for (const [title, content] of [["zeta", "Z"], ["Alpha page", "A *b*"], ["dir/Nested page", "N"]]) {
      expect((await api(developer).post(base, { json: { title, content } })).status).toBe(201);
    }
    expect(await statusAndBody(await api(guest).get(base))).toEqual([
      200,
      [
        { format: "markdown", slug: "Alpha-page", title: "Alpha page" },
        { format: "markdown", slug: "dir/Nested-page", title: "Nested page" },
        { format: "markdown", slug: "zeta", title: "zeta" },
      ],
    ]);
    const [, withContent] = (await statusAndBody(await api(guest).get(base, { query: { with_content: true } }))) as [number, Json[]];
    expect(withContent.map((p) => [p.slug, p.content, p.encoding])).toEqual([["Alpha-page", "A *b*", "UTF-8"], ["dir/Nested-page", "N", "UTF-8"], ["zeta", "Z", "UTF-8"]]);
    expect(await statusAndBody(await api(guest).get(base, { query: { with_content: "maybe" } }))).toEqual([400, { error: "with_content is invalid" }]);
  });

  it("reads a list in a number of statements that does not grow with the pages (one per tree depth, one for the contents)", async () => {
    const { developer, api, base } = await setup();
    await api(developer).post(base, { json: { title: "dir/first", content: "1" } });
    const one = queryCount(await api(developer).get(base, { query: { with_content: true } }));
    for (let i = 0; i < 6; i++) await api(developer).post(base, { json: { title: `dir/page ${i}`, content: `${i}` } });
    const seven = await api(developer).get(base, { query: { with_content: true } });
    expect(((await seven.clone().json()) as Json[]).length).toBe(7);
    expect(one).toBeGreaterThan(0);
    expect(queryCount(seven)).toBe(one);
  });

  it("answers 404 to whoever cannot read the project, and 403 when the wiki is disabled", async () => {
    const { w, project, guest, api, base } = await setup();
    expect(await statusAndBody(await w.as(w.stranger).get(base))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(base))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await w.root.put(`/projects/${project.id}`, { json: { wiki_enabled: false } })).status).toBe(200);
    expect(await statusAndBody(await api(guest).get(base))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.get(base))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("lets anyone read the wiki of a public project", async () => {
    const { w, developer, api, base } = await setup("public");
    await api(developer).post(base, { json: { title: "home", content: "hi" } });
    expect(await statusAndBody(await w.anonymous.get(base))).toEqual([200, [{ format: "markdown", slug: "home", title: "home" }]]);
    expect(await statusAndBody(await w.anonymous.get(`${base}/home`))).toEqual([200, { format: "markdown", slug: "home", title: "home", content: "hi", encoding: "UTF-8" }]);
  });
});

describe("POST /projects/:id/wikis", () => {
  it("commits the page as <slug>.<ext> on the wiki's default branch, by the user, with GitLab's message", async () => {
    const { w, project, developer, api, base } = await setup();
    const res = await api(developer).post(base, { json: { title: "  My   first / page one ", content: "= Title", format: "asciidoc" } });
    expect(await statusAndBody(res)).toEqual([201, { format: "asciidoc", slug: "My-first/page-one", title: "page one", content: "= Title", encoding: "UTF-8" }]);
    const wiki = await wikiOf(w, project);
    expect(wiki!.default_branch).toBe("main");
    const files = await rows<{ path: string; status: string }>(w, sql`SELECT path, status FROM git_commit_changes WHERE pool_id = ${-wiki!.id}`);
    expect(files).toEqual([{ path: "My-first/page-one.asciidoc", status: "A" }]);
    expect(await wikiCommits(w, project)).toEqual([
      { message: `${developer.username} created page: My first/page one`, author_name: developer.name, author_email: developer.email, committer_name: developer.name },
    ]);
    const refs = await rows(w, sql`SELECT name FROM git_refs WHERE project_id = ${-wiki!.id}`);
    expect(refs).toEqual([{ name: "refs/heads/main" }]);
    // No push event: a wiki write starts no pipeline and no push hook of the project.
    expect(await rows(w, sql`SELECT id FROM push_events WHERE project_id = ${project.id}`)).toEqual([]);
  });

  it("answers GitLab's 400s: missing parameters, a bad format, a blank title, a title too long, a duplicate page", async () => {
    const { developer, api, base } = await setup();
    expect(await statusAndBody(await api(developer).post(base, { json: { content: "x" } }))).toEqual([400, { error: "title is missing" }]);
    expect(await statusAndBody(await api(developer).post(base, { json: { title: "x" } }))).toEqual([400, { error: "content is missing" }]);
    expect(await statusAndBody(await api(developer).post(base, { json: { title: "x", content: "x", format: "textile" } }))).toEqual([
      400,
      { error: "format does not have a valid value" },
    ]);
    expect(await statusAndBody(await api(developer).post(base, { json: { title: "  ", content: "x" } }))).toEqual([400, { message: { title: ["can't be blank"] } }]);
    expect(await statusAndBody(await api(developer).post(base, { json: { title: "a".repeat(246), content: "x" } }))).toEqual([
      400,
      { message: { title: ["exceeds the limit of 245 bytes"] } },
    ]);
    expect((await api(developer).post(base, { json: { title: "Taken", content: "x" } })).status).toBe(201);
    // The same title in another format or capitalisation is the same page (Wiki#file_exists_by_regex?).
    expect(await statusAndBody(await api(developer).post(base, { json: { title: "taken", content: "y", format: "org" } }))).toEqual([
      400,
      { message: { base: ["Duplicate page: A page with that title already exists in the file taken.org"] } },
    ]);
  });

  it("needs create_wiki (developer): 401 anonymous, 404 non-member, 403 guest and reporter", async () => {
    const { w, guest, reporter, maintainer, api, base } = await setup();
    const body = { json: { title: "p", content: "c" } };
    expect(await statusAndBody(await w.anonymous.post(base, body))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(base, body))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await api(guest).post(base, body))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await api(reporter).post(base, body))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api(maintainer).post(base, body)).status).toBe(201);
  });
});

describe("GET /projects/:id/wikis/:slug", () => {
  it("finds a page by URL-encoded slug or by title, at a version, rendered on request; 404 Wiki Page Not Found otherwise", async () => {
    const { w, project, guest, developer, api, base } = await setup();
    await api(developer).post(base, { json: { title: "docs/Getting started", content: "# Hello\n\n<script>x</script> *hi*" } });
    const first = await wikiCommits(w, project);
    const page = await statusAndBody(await api(guest).get(`${base}/${encodeURIComponent("docs/Getting-started")}`));
    expect(page).toEqual([200, { format: "markdown", slug: "docs/Getting-started", title: "Getting started", content: "# Hello\n\n<script>x</script> *hi*", encoding: "UTF-8" }]);
    // The title finds it too, case-insensitively (Wiki#find_matched_file).
    expect((await api(guest).get(`${base}/${encodeURIComponent("DOCS/getting started")}`)).status).toBe(200);
    const [, rendered] = (await statusAndBody(await api(guest).get(`${base}/${encodeURIComponent("docs/Getting-started")}`, { query: { render_html: true } }))) as [number, Json];
    // The shared GitLab Flavored Markdown renderer: a heading anchor, and the script removed by the sanitiser.
    expect(rendered.content).toMatch(/^<h1>\n?<a id="user-content-hello"[^>]*>.*Hello<\/h1>/s);
    // `<script>` opens an HTML block (CommonMark), so the rest of that line stays text once the script is gone.
    expect(rendered.content).toContain(" *hi*");
    expect(rendered.content).not.toContain("<script");

    const wiki = await wikiOf(w, project);
    const [{ oid }] = await rows<{ oid: string }>(w, sql`SELECT oid FROM git_commits WHERE pool_id = ${-wiki!.id}`);
    expect(first).toHaveLength(1);
    await api(developer).put(`${base}/${encodeURIComponent("docs/Getting-started")}`, { json: { content: "v2" } });
    expect(((await statusAndBody(await api(guest).get(`${base}/${encodeURIComponent("docs/Getting-started")}`))) as [number, Json])[1].content).toBe("v2");
    const old = (await statusAndBody(await api(guest).get(`${base}/${encodeURIComponent("docs/Getting-started")}`, { query: { version: oid.trim() } }))) as [number, Json];
    expect(old[1].content).toBe("# Hello\n\n<script>x</script> *hi*");

    for (const [path, query] of [["nope", {}], ["docs%2FGetting-started", { version: "foobar" }]] as const) {
      expect(await statusAndBody(await api(guest).get(`${base}/${path}`, { query }))).toEqual([404, { message: "404 Wiki Page Not Found" }]);
    }
  });
});

describe("PUT /projects/:id/wikis/:slug", () => {
  it("updates the content, keeps the directory on a rename, moves the file, and refuses a title that is taken", async () => {
    const { w, project, developer, reporter, api, base } = await setup();
    await api(developer).post(base, { json: { title: "dir/old", content: "1" } });
    await api(developer).post(base, { json: { title: "dir/other", content: "2" } });
    expect(await statusAndBody(await api(reporter).put(`${base}/dir%2Fold`, { json: { content: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await api(developer).put(`${base}/dir%2Fmissing`, { json: { content: "x" } }))).toEqual([404, { message: "404 Wiki Page Not Found" }]);
    expect(await statusAndBody(await api(developer).put(`${base}/dir%2Fold`, { json: { title: "New name", content: "3" } }))).toEqual([
      200,
      { format: "markdown", slug: "dir/New-name", title: "New name", content: "3", encoding: "UTF-8" },
    ]);
    const [latest] = await wikiCommits(w, project);
    expect(latest.message).toBe(`${developer.username} updated page: dir/New name`);
    const wiki = await wikiOf(w, project);
    const changes = await rows<{ path: string; status: string; old_path: string | null }>(
      w,
      sql`SELECT path, status, old_path FROM git_commit_changes WHERE pool_id = ${-wiki!.id} AND commit_oid = (SELECT target FROM git_refs WHERE project_id = ${-wiki!.id})`,
    );
    expect(changes.map((c) => [c.status, c.path]).sort()).toEqual([["A", "dir/New-name.md"], ["D", "dir/old.md"]]);
    expect(await statusAndBody(await api(developer).put(`${base}/dir%2FNew-name`, { json: { title: "other" } }))).toEqual([
      400,
      { message: { base: ["There is already a page with the same title in that path."] } },
    ]);
    // `format` defaults to markdown: a PUT of an org page without it rewrites it as Markdown.
    await api(developer).post(base, { json: { title: "org page", content: "* x", format: "org" } });
    expect(((await statusAndBody(await api(developer).put(`${base}/org-page`, { json: { content: "* y" } }))) as [number, Json])[1].format).toBe("markdown");
  });
});

describe("DELETE /projects/:id/wikis/:slug", () => {
  it("needs admin_wiki (maintainer), deletes the file in a commit, then the page is gone", async () => {
    const { w, project, developer, maintainer, api, base } = await setup();
    await api(developer).post(base, { json: { title: "Gone soon", content: "x" } });
    expect(await statusAndBody(await api(developer).delete(`${base}/Gone-soon`))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await api(maintainer).delete(`${base}/Gone-soon`);
    expect(res.status).toBe(204);
    expect((await wikiCommits(w, project))[0].message).toBe(`${maintainer.username} deleted page: Gone soon`);
    expect(await statusAndBody(await api(maintainer).delete(`${base}/Gone-soon`))).toEqual([404, { message: "404 Wiki Page Not Found" }]);
    expect(await statusAndBody(await api(maintainer).get(base))).toEqual([200, []]);
  });
});

describe("POST /projects/:id/wikis/attachments", () => {
  it("commits the file under uploads/<hex>/ and answers its path and Markdown link", async () => {
    const { w, project, developer, guest, api, base } = await setup();
    const form = () => {
      const data = new FormData();
      data.append("file", new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "dk.png", { type: "image/png" }));
      return data;
    };
    const [status, body] = (await statusAndBody(await api(developer).post(`${base}/attachments`, { multipart: form() }))) as [number, Json];
    expect(status).toBe(201);
    expect(body.file_path).toMatch(/^uploads\/[0-9a-f]{32}\/dk\.png$/);
    expect(body).toEqual({ file_name: "dk.png", file_path: body.file_path, branch: "main", link: { url: body.file_path, markdown: `![dk](${body.file_path})` } });
    expect((await wikiCommits(w, project))[0].message).toBe("Upload attachment dk.png");
    // An attachment is no page.
    expect(await statusAndBody(await api(guest).get(base))).toEqual([200, []]);
    expect(await statusAndBody(await api(developer).post(`${base}/attachments`, { json: { branch: "main" } }))).toEqual([400, { error: "file is missing" }]);
    expect(await statusAndBody(await api(guest).post(`${base}/attachments`, { multipart: form() }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /groups/:id/wikis and POST /groups/:id/wikis", () => {
  it("keeps a group's pages in the group's own wiki, readable by its members, written by developers", async () => {
    const w = await world();
    const [guest, developer] = [await w.user(), await w.user()];
    const group = await w.group({ guests: [guest], developers: [developer] });
    const base = `/groups/${group.id}/wikis`;
    expect(await statusAndBody(await w.as(guest).get(base))).toEqual([200, []]);
    expect(await statusAndBody(await w.as(guest).post(base, { json: { title: "g", content: "c" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(developer).post(base, { json: { title: "Group home", content: "c" } })).status).toBe(201);
    expect(await statusAndBody(await w.as(guest).get(`${base}/Group-home`))).toEqual([200, { format: "markdown", slug: "Group-home", title: "Group home", content: "c", encoding: "UTF-8" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(base))).toEqual([404, { message: "404 Group Not Found" }]);
    const wikis = await rows(w, sql`SELECT project_id, group_id FROM wikis WHERE group_id = ${group.id}`);
    expect(wikis).toEqual([{ project_id: null, group_id: group.id }]);
  });
});
