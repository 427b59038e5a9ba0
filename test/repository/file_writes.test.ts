import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { smallRepo } from "../helpers/commits";

type Json = Record<string, any>;
const filePath = (project: { id: number }, path: string) => `/projects/${project.id}/repository/files/${encodeURIComponent(path)}`;
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

describe("POST /projects/:id/repository/files/:file_path", () => {
  it("creates a file in one commit and answers {file_path, branch}", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const res = await api.post(filePath(project, "lib/new file.rb"), {
      json: { branch: "main", commit_message: "Add it", content: "cHV0cyAx", encoding: "base64", execute_filemode: true, author_name: "Ann", author_email: "ann@example.com" },
    });
    expect(await statusAndBody(res)).toEqual([201, { file_path: "lib/new file.rb", branch: "main" }]);
    expect(queryCount(res)).toBeLessThanOrEqual(8);
    const file = (await (await api.get(filePath(project, "lib/new file.rb"), { query: { ref: "HEAD" } })).json()) as Json;
    expect(file).toMatchObject({ file_path: "lib/new file.rb", content: "cHV0cyAx", execute_filemode: true, ref: "HEAD" });
    const [head] = (await (await api.get(`/projects/${project.id}/repository/commits`, { query: { per_page: 1 } })).json()) as Json[];
    expect(head).toMatchObject({ title: "Add it", author_name: "Ann", author_email: "ann@example.com" });
  });

  it("answers GitLab's errors: missing params, existing file, unknown start branch, protected branch, anonymous", async () => {
    const w = await world();
    const developer = await w.user();
    const { api, project } = await smallRepo(w, { developers: [developer] });
    expect(await statusAndBody(await api.post(filePath(project, "x.txt"), { json: { branch: "main" } }))).toEqual([
      400,
      { error: "commit_message is missing, content is missing" },
    ]);
    expect(await statusAndBody(await api.post(filePath(project, "README.md"), { json: { branch: "main", commit_message: "m", content: "x" } }))).toEqual([
      400,
      { message: "A file with this name already exists" },
    ]);
    expect(await statusAndBody(await api.post(filePath(project, "y.txt"), { json: { branch: "new", start_branch: "ghost", commit_message: "m", content: "x" } }))).toEqual([
      400,
      { message: "You can only create or edit files when you are on a branch" },
    ]);
    expect(await statusAndBody(await w.as(developer).post(filePath(project, "y.txt"), { json: { branch: "main", commit_message: "m", content: "x" } }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    expect((await w.as(developer).post(filePath(project, "y.txt"), { json: { branch: "dev", start_branch: "main", commit_message: "m", content: "x" } })).status).toBe(201);
    expect((await w.anonymous.post(filePath(project, "y.txt"), { json: { branch: "main", commit_message: "m", content: "x" } })).status).toBe(401);
  });
});

describe("PUT /projects/:id/repository/files/:file_path", () => {
  it("updates with last_commit_id, refuses a stale one with the files API's wording", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    const [third, , first] = commits;
    const stale = await api.put(filePath(project, "README.md"), { json: { branch: "main", commit_message: "m", content: "x\n", last_commit_id: first.id } });
    expect(await statusAndBody(stale)).toEqual([400, { message: "You are attempting to update a file that has changed since you started editing it." }]);
    const res = await api.put(filePath(project, "README.md"), { json: { branch: "main", commit_message: "Update", content: "new\n", last_commit_id: third.id } });
    expect(await statusAndBody(res)).toEqual([200, { file_path: "README.md", branch: "main" }]);
    expect(await statusAndBody(await api.put(filePath(project, "nope.md"), { json: { branch: "main", commit_message: "m", content: "x" } }))).toEqual([
      400,
      { message: "A file with this name doesn't exist" },
    ]);
  });
});

describe("DELETE /projects/:id/repository/files/:file_path", () => {
  it("deletes in one commit (204), refuses a stale last_commit_id and a missing file", async () => {
    const w = await world();
    const { api, project, commits } = await smallRepo(w);
    const first = commits[2];
    expect(await statusAndBody(await api.delete(filePath(project, "README.md"), { json: { branch: "main", commit_message: "m", last_commit_id: first.id } }))).toEqual([
      400,
      { message: "You are attempting to delete a file that has been previously updated." },
    ]);
    expect((await api.delete(filePath(project, "docs/a.md"), { json: { branch: "main", commit_message: "Remove docs" } })).status).toBe(204);
    expect((await api.get(filePath(project, "docs/a.md"), { query: { ref: "main" } })).status).toBe(404);
    expect(await statusAndBody(await api.delete(filePath(project, "docs/a.md"), { json: { branch: "main", commit_message: "m" } }))).toEqual([
      400,
      { message: "A file with this name doesn't exist" },
    ]);
  });
});
