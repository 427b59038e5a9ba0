import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitOn } from "../helpers/commits";
import { detectLanguage, languageShares } from "../../functions/projects/languages";

describe("GET /projects/:id/languages", () => {
  hidesPrivateProject((w, project) => w.as(w.stranger).get(`/projects/${project.id}/languages`));

  it("answers {} for an empty repository", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/languages`))).toEqual([200, {}]);
  });

  it("shares bytes of programming and markup files of the default branch, largest first", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    await commitOn(w.as(owner), project, "main", "files", [
      { action: "create", file_path: "app/main.rb", content: "x".repeat(600) },
      { action: "create", file_path: "lib/util.js", content: "y".repeat(300) },
      { action: "create", file_path: "index.html", content: "z".repeat(100) },
      { action: "create", file_path: "README.md", content: "prose is not counted".repeat(50) },
      { action: "create", file_path: "data.json", content: "{}".repeat(500) },
      { action: "create", file_path: "Rakefile", content: "r".repeat(0) },
    ]);
    // Another branch does not count.
    await commitOn(w.as(owner), project, "other", "more", [{ action: "create", file_path: "x.py", content: "p".repeat(5000) }], { start_branch: "main" });
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/languages`))).toEqual([200, { Ruby: 60, JavaScript: 30, HTML: 10 }]);
  });

  it("detects by file name, then compound and simple extensions (unit)", () => {
    expect(detectLanguage("Gemfile")?.name).toBe("Ruby");
    expect(detectLanguage("src/a.ts")?.name).toBe("TypeScript");
    expect(detectLanguage("a.PY")?.name).toBe("Python");
    expect(detectLanguage("noext")).toBeNull();
    expect(languageShares([{ path: "a.go", size: 1 }, { path: "b.go", size: 1 }, { path: "c.c", size: 1 }])).toEqual({ Go: 66.67, C: 33.33 });
  });
});

describe("GET /projects/:id/storage", () => {
  requiresAuthentication((w) => w.anonymous.get("/projects/1/storage"));

  it("answers 403 for non-admins, even the owner", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).get(`/projects/${project.id}/storage`))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("shows the hashed-storage name to admins", async () => {
    const w = await world();
    const project = await w.project();
    const res = await w.root.get(`/projects/${project.id}/storage`);
    const [status, body] = await statusAndBody(res);
    expect(status).toBe(200);
    expect(body).toEqual({
      project_id: project.id,
      disk_path: expect.stringMatching(/^@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/),
      created_at: expect.any(String),
      repository_storage: "default",
    });
    // sha256("1") is GitLab's documented example for project 1.
    if (project.id === 1) expect((body as { disk_path: string }).disk_path).toContain("6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b");
    expect(await statusAndBody(await w.root.get("/projects/2147483600/storage"))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("POST /projects/:id/housekeeping", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/housekeeping"));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/housekeeping`));
  forbidsRoles(["developer"], (w, project, user) => w.as(user).post(`/projects/${project.id}/housekeeping`));

  it("answers 201 for a maintainer", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).post(`/projects/${project.id}/housekeeping`))).toEqual([201, null]);
  });
});
