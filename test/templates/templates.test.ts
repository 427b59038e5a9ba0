import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { commit, queryCount, type Json } from "../helpers/api";
import { hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";

const YEAR = String(new Date().getUTCFullYear());
const LICENSE_KEYS = ["agpl-3.0", "apache-2.0", "bsd-2-clause", "bsd-3-clause", "bsl-1.0", "cc0-1.0", "epl-2.0", "gpl-2.0", "gpl-3.0", "lgpl-2.1", "mit", "mpl-2.0", "unlicense"];
const LICENSE_FIELDS = ["conditions", "content", "description", "featured", "html_url", "key", "limitations", "name", "nickname", "permissions", "popular", "source_url"];

describe("GET /templates/licenses", () => {
  it("lists choosealicense.com's licenses by key, anonymously, with GitLab's fields", async () => {
    const w = await world();
    const res = await w.anonymous.get("/templates/licenses", { query: { per_page: 100 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((l) => l.key)).toEqual(LICENSE_KEYS);
    expect(res.headers.get("x-total")).toBe("13");
    const mit = body.find((l) => l.key === "mit")!;
    expect(Object.keys(mit).sort()).toEqual(LICENSE_FIELDS);
    expect(mit).toMatchObject({
      name: "MIT License",
      nickname: null,
      popular: true,
      featured: true,
      html_url: "http://choosealicense.com/licenses/mit/",
      source_url: null,
      conditions: ["include-copyright"],
      permissions: ["commercial-use", "modifications", "distribution", "private-use"],
      limitations: ["liability", "warranty"],
    });
    expect(mit.description).toContain("A short and simple permissive license");
    // The list resolves nothing: the placeholders stay.
    expect(mit.content).toContain("Copyright (c) [year] [fullname]");
    expect(body.find((l) => l.key === "gpl-3.0")!.nickname).toBe("GNU GPLv3");
  });

  it("keeps the popular ones with popular=true, the others with popular=false", async () => {
    const w = await world();
    const popular = (await (await w.anonymous.get("/templates/licenses", { query: { popular: "true" } })).json()) as Json[];
    expect(popular.map((l) => l.key)).toEqual(["apache-2.0", "gpl-3.0", "mit"]);
    const others = (await (await w.anonymous.get("/templates/licenses", { query: { popular: "false", per_page: 100 } })).json()) as Json[];
    expect(others).toHaveLength(10);
    expect(others.every((l) => l.popular === false)).toBe(true);
  });

  it("paginates", async () => {
    const w = await world();
    const res = await w.anonymous.get("/templates/licenses", { query: { per_page: 5, page: 3 } });
    expect(((await res.json()) as Json[]).map((l) => l.key)).toEqual(["mit", "mpl-2.0", "unlicense"]);
    expect([res.headers.get("x-total-pages"), res.headers.get("x-prev-page"), res.headers.get("x-next-page")]).toEqual(["3", "2", ""]);
  });

  it("answers 400 for a bad popular or page", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses", { query: { popular: "maybe" } }))).toEqual([400, { error: "popular is invalid" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses", { query: { page: 0 } }))).toEqual([400, { error: "page does not have a valid value" }]);
  });
});

describe("GET /templates/licenses/:name", () => {
  it("fills the year, and the copyright holder from `fullname`", async () => {
    const w = await world();
    const res = await w.anonymous.get("/templates/licenses/mit", { query: { fullname: "Jane $1 Doe" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(LICENSE_FIELDS);
    expect(body.content).toContain(`Copyright (c) ${YEAR} Jane $1 Doe`);
  });

  it("takes the caller's name when no fullname is given, and the project's name", async () => {
    const w = await world();
    const user = await w.user({ name: "Ada Lovelace" });
    const mit = (await (await w.as(user).get("/templates/licenses/mit")).json()) as Json;
    expect(mit.content).toContain(`Copyright (c) ${YEAR} Ada Lovelace`);
    const gpl = (await (await w.as(user).get("/templates/licenses/gpl-2.0", { query: { project: "Frobnicator" } })).json()) as Json;
    expect(gpl.content).toContain("Frobnicator");
    expect(gpl.content).not.toMatch(/<one line to give the program's name/i);
    expect(gpl.content).toContain(`Copyright (C) ${YEAR}  Ada Lovelace`);
  });

  it("keeps [fullname] for an anonymous caller without fullname", async () => {
    const w = await world();
    const mit = (await (await w.anonymous.get("/templates/licenses/mit")).json()) as Json;
    expect(mit.content).toContain(`Copyright (c) ${YEAR} [fullname]`);
  });

  it("answers 404 License Not Found for an unknown or hidden license, and a plain 404 for a name the route refuses", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses/nope-1.0"))).toEqual([404, { message: "404 License Not Found" }]);
    // ISC is one of choosealicense.com's hidden licenses; keys are lower case.
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses/isc"))).toEqual([404, { message: "404 License Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses/MIT"))).toEqual([404, { message: "404 License Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/licenses/a+b"))).toEqual([404, { error: "404 Not Found" }]);
  });
});

describe("GET /templates/:type", () => {
  it("lists GitHub's .gitignore collection: Languages, then Global, by name within each", async () => {
    const w = await world();
    const first = await w.anonymous.get("/templates/gitignores", { query: { per_page: 100 } });
    expect(first.status).toBe(200);
    // 122 root templates and 58 under Global/ in the packaged github/gitignore.
    expect([first.headers.get("x-total"), first.headers.get("x-total-pages")]).toEqual(["180", "2"]);
    const page1 = (await first.json()) as Json[];
    expect(page1[0]).toEqual({ key: "Actionscript", name: "Actionscript" });
    // Byte order, as Ruby sorts names: `AppEngine` before `AppceleratorTitanium`.
    expect(page1.slice(0, 6).map((t) => t.key)).toEqual(["Actionscript", "Ada", "Agda", "Android", "AppEngine", "AppceleratorTitanium"]);
    expect(page1.map((t) => t.key)).toEqual(expect.arrayContaining(["C", "C++", "Go", "Java", "Node", "Python", "Ruby", "Rust"]));
    const page2 = (await (await w.anonymous.get("/templates/gitignores", { query: { per_page: 100, page: 2 } })).json()) as Json[];
    const keys = [...page1, ...page2].map((t) => t.key);
    // The Global category starts after the last language and its keys carry no folder.
    expect(keys.slice(121, 123)).toEqual(["Zephir", "Anjuta"]);
    expect(keys.at(-1)).toBe("macOS");
    expect(keys.indexOf("Windows")).toBeGreaterThan(keys.indexOf("Zephir"));
  });

  it("lists CI/CD YAML templates and Dockerfiles", async () => {
    const w = await world();
    const ci = ((await (await w.anonymous.get("/templates/gitlab_ci_ymls", { query: { per_page: 100 } })).json()) as Json[]).map((t) => t.key);
    expect(ci).toEqual(expect.arrayContaining(["Nodejs", "Python", "Go", "Docker", "HTML"]));
    expect(ci.at(-1)).toBe("HTML"); // the Pages category comes after General
    const docker = ((await (await w.anonymous.get("/templates/dockerfiles")).json()) as Json[]).map((t) => t.key);
    expect(docker).toEqual(expect.arrayContaining(["Binary", "Golang", "Node", "Python"]));
  });

  it("paginates", async () => {
    const w = await world();
    const res = await w.anonymous.get("/templates/gitignores", { query: { per_page: 2, page: 2 } });
    expect(await res.json()).toEqual([
      { key: "Agda", name: "Agda" },
      { key: "Android", name: "Android" },
    ]);
    expect([res.headers.get("x-next-page"), res.headers.get("x-total-pages")]).toEqual(["3", "90"]);
  });

  it("is an unknown route for another type", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/templates/issues"))).toEqual([404, { error: "404 Not Found" }]);
  });
});

describe("GET /templates/:type/:name", () => {
  it("answers the template's name and content", async () => {
    const w = await world();
    const res = await w.anonymous.get("/templates/gitignores/Node");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(["content", "name"]);
    expect(body.name).toBe("Node");
    expect(body.content).toContain("node_modules/");
    // A Global template is found by its key alone.
    const macos = (await (await w.anonymous.get("/templates/gitignores/macOS")).json()) as Json;
    expect([macos.name, macos.content]).toEqual(["macOS", expect.stringContaining(".DS_Store")]);
    const ci = (await (await w.anonymous.get("/templates/gitlab_ci_ymls/Nodejs")).json()) as Json;
    expect(ci.content).toContain("npm ci");
    const docker = (await (await w.anonymous.get("/templates/dockerfiles/Golang")).json()) as Json;
    expect(docker.content).toMatch(/^# .*\nFROM golang/);
  });

  it("answers GitLab's 404 per type", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/templates/gitignores/Cobol"))).toEqual([404, { message: "404 gitignore Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/gitignores/node"))).toEqual([404, { message: "404 gitignore Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/gitignores/Global%2FmacOS"))).toEqual([404, { error: "404 Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/gitlab_ci_ymls/node"))).toEqual([404, { message: "404 gitlab_ci_yml Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get("/templates/dockerfiles/Nope"))).toEqual([404, { message: "404 dockerfile Not Found" }]);
    // `Pages/HTML` is not a name the global route accepts (`[\w.-]+`); its key is `HTML`.
    expect(await statusAndBody(await w.anonymous.get("/templates/gitlab_ci_ymls/Pages%2FHTML"))).toEqual([404, { error: "404 Not Found" }]);
  });
});

async function projectWithTemplates(visibility: "private" | "public" = "private") {
  const w = await world();
  const owner = await w.user();
  const guest = await w.user();
  const project = await w.project({ owner, visibility, guests: [guest] });
  await commit(w, owner, project, "main", "Templates", [
    { action: "create", file_path: ".gitlab/issue_templates/Bug.md", content: "## Steps to reproduce\n" },
    { action: "create", file_path: ".gitlab/issue_templates/Feature request.md", content: "## Proposal\n" },
    { action: "create", file_path: ".gitlab/issue_templates/notes.txt", content: "not a template\n" },
    { action: "create", file_path: ".gitlab/issue_templates/old/Legacy.md", content: "## Legacy\n" },
    { action: "create", file_path: ".gitlab/merge_request_templates/Default.md", content: "## What does this change?\n" },
  ]);
  return { w, owner, guest, project };
}

describe("GET /projects/:id/templates/:type", () => {
  it("lists the project's issue and merge request templates from the default branch", async () => {
    const { w, guest, project } = await projectWithTemplates();
    const issues = await w.as(guest).get(`/projects/${project.id}/templates/issues`);
    expect(issues.status).toBe(200);
    expect(await issues.json()).toEqual([
      { key: "Bug", name: "Bug" },
      { key: "Feature request", name: "Feature request" },
    ]);
    expect(issues.headers.get("x-total")).toBe("2");
    expect(await (await w.as(guest).get(`/projects/${project.id}/templates/merge_requests`)).json()).toEqual([{ key: "Default", name: "Default" }]);
  });

  it("answers an empty list for an empty repository", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const res = await w.anonymous.get(`/projects/${project.id}/templates/issues`);
    expect([res.status, await res.json()]).toEqual([200, []]);
  });

  it("lists the vendored templates and the licenses, popular ones grouped", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    const gitignores = (await (await w.anonymous.get(`/projects/${project.id}/templates/gitignores`, { query: { per_page: 100 } })).json()) as Json[];
    expect(gitignores.map((t) => t.key)).toContain("Python");
    const licenses = (await (await w.anonymous.get(`/projects/${project.id}/templates/licenses`, { query: { per_page: 100 } })).json()) as Json[];
    expect(Object.keys(licenses[0]).sort()).toEqual(["key", "name"]);
    // agpl-3.0 comes first and is not popular: the Other category, then the Popular one.
    expect(licenses.map((l) => l.key)).toEqual([...LICENSE_KEYS.filter((k) => !["apache-2.0", "gpl-3.0", "mit"].includes(k)), "apache-2.0", "gpl-3.0", "mit"]);
  });

  it("paginates", async () => {
    const { w, owner, project } = await projectWithTemplates();
    const res = await w.as(owner).get(`/projects/${project.id}/templates/issues`, { query: { per_page: 1, page: 2 } });
    expect(await res.json()).toEqual([{ key: "Feature request", name: "Feature request" }]);
    expect([res.headers.get("x-total"), res.headers.get("x-prev-page")]).toEqual(["2", "1"]);
  });

  it("runs as many statements for one template as for a hundred, at most 6, and none for the vendored ones", async () => {
    const { w, owner, project } = await projectWithTemplates();
    const one = await w.as(owner).get(`/projects/${project.id}/templates/issues`, { query: { per_page: 1 } });
    const hundred = await w.as(owner).get(`/projects/${project.id}/templates/issues`, { query: { per_page: 100 } });
    expect(queryCount(one)).toBe(queryCount(hundred));
    expect(queryCount(hundred)).toBeLessThanOrEqual(6);
    // The vendored templates cost nothing beyond authentication (and the project's lookup).
    const global = await w.anonymous.get("/templates/licenses", { query: { per_page: 100 } });
    expect(queryCount(global)).toBe(0);
    const signedIn = await w.as(owner).get("/templates/licenses", { query: { per_page: 100 } });
    const licenses = await w.as(owner).get(`/projects/${project.id}/templates/licenses`, { query: { per_page: 100 } });
    expect(queryCount(licenses)).toBe(queryCount(signedIn) + 1);
  });

  it("answers 400 for an unknown type", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/templates/metrics`))).toEqual([400, { error: "type does not have a valid value" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/templates/issues`));
});

describe("GET /projects/:id/templates/:type/:name", () => {
  it("answers an issue template's content, by path too", async () => {
    const { w, guest, project } = await projectWithTemplates();
    const res = await w.as(guest).get(`/projects/${encodeURIComponent(project.fullPath)}/templates/issues/Feature%20request`);
    expect(await statusAndBody(res)).toEqual([200, { name: "Feature request", content: "## Proposal\n" }]);
    const mr = await w.as(guest).get(`/projects/${project.id}/templates/merge_requests/Default`);
    expect(await statusAndBody(mr)).toEqual([200, { name: "Default", content: "## What does this change?\n" }]);
  });

  it("answers 404 Template Not Found for a missing template or one outside the folder", async () => {
    const { w, owner, project } = await projectWithTemplates();
    const get = (path: string) => w.as(owner).get(`/projects/${project.id}/templates/${path}`);
    expect(await statusAndBody(await get("issues/Nope"))).toEqual([404, { message: "404 Template Not Found" }]);
    expect(await statusAndBody(await get("issues/..%2Fmerge_request_templates%2FDefault"))).toEqual([404, { message: "404 Template Not Found" }]);
    expect(await statusAndBody(await get("merge_requests/Bug"))).toEqual([404, { message: "404 Template Not Found" }]);
    expect(await statusAndBody(await get("licenses/isc"))).toEqual([404, { message: "404 Template Not Found" }]);
    expect(await statusAndBody(await get("dockerfiles/Nope"))).toEqual([404, { message: "404 Template Not Found" }]);
  });

  it("answers licenses resolved and vendored templates, names with `+` and `%2F` accepted", async () => {
    const { w, owner, project } = await projectWithTemplates();
    const mit = (await (await w.as(owner).get(`/projects/${project.id}/templates/licenses/mit`, { query: { fullname: "ACME" } })).json()) as Json;
    expect(mit).toMatchObject({ key: "mit", popular: true });
    expect(mit.content).toContain(`Copyright (c) ${YEAR} ACME`);
    const ci = await w.as(owner).get(`/projects/${project.id}/templates/gitlab_ci_ymls/Go`);
    expect(((await ci.json()) as Json).name).toBe("Go");
    // The sub-folder template is not listed, but found by its path (RepoTemplateFinder#find).
    const legacy = await w.as(owner).get(`/projects/${project.id}/templates/issues/old%2FLegacy`);
    expect(await statusAndBody(legacy)).toEqual([200, { name: "Legacy", content: "## Legacy\n" }]);
    // `+` is a character the project route accepts (`C%2B%2B` for C++), which the instance route does not.
    for (const name of ["C++", "C%2B%2B"]) {
      const cpp = await w.as(owner).get(`/projects/${project.id}/templates/gitignores/${name}`);
      expect([cpp.status, ((await cpp.json()) as Json).name]).toEqual([200, "C++"]);
    }
    expect(await statusAndBody(await w.anonymous.get("/templates/gitignores/C++"))).toEqual([404, { error: "404 Not Found" }]);
    // Differs from GitLab, whose finder also reaches a Global template by its path: only its key finds it here.
    const globalPath = await w.as(owner).get(`/projects/${project.id}/templates/gitignores/Global%2FmacOS`);
    expect(await statusAndBody(globalPath)).toEqual([404, { message: "404 Template Not Found" }]);
    expect((await w.as(owner).get(`/projects/${project.id}/templates/gitignores/macOS`)).status).toBe(200);
  });

  it("answers 400 for an unknown type and a bad source_template_project_id", async () => {
    const { w, owner, project } = await projectWithTemplates();
    expect(await statusAndBody(await w.as(owner).get(`/projects/${project.id}/templates/wikis/Bug`))).toEqual([400, { error: "type does not have a valid value" }]);
    const bad = await w.as(owner).get(`/projects/${project.id}/templates/issues/Bug`, { query: { source_template_project_id: "x" } });
    expect(await statusAndBody(bad)).toEqual([400, { error: "source_template_project_id is invalid" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/templates/licenses/mit`));

  it("answers 404 Project Not Found to an anonymous caller of a private project", async () => {
    const { w, project } = await projectWithTemplates();
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/templates/issues/Bug`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
