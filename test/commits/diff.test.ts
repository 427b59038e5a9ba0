import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

const diffPath = (project: { id: number }, sha: string) => `${commitsPath(project)}/${sha}/diff`;

describe("GET /projects/:id/repository/commits/:sha/diff", () => {
  it("returns the diffs against the first parent, in GitLab's shape", async () => {
    const w = await world();
    const { project, api, commits } = await smallRepo(w);
    const [status, body] = await statusAndBody(await api.get(diffPath(project, commits[0].id)));
    expect(status).toBe(200);
    expect(body).toEqual([
      { diff: "@@ -1 +1,2 @@\n # Hello\n+world\n", new_path: "README.md", old_path: "README.md", a_mode: "100644", b_mode: "100644", new_file: false, renamed_file: false, deleted_file: false },
    ]);
    // A root commit diffs against the empty tree; a branch name works as the sha.
    const root = (await (await api.get(diffPath(project, commits[2].id))).json()) as unknown[];
    expect(root).toEqual([expect.objectContaining({ new_path: "README.md", new_file: true, a_mode: "0", b_mode: "100644", diff: "@@ -0,0 +1 @@\n+# Hello\n" })]);
    expect((await api.get(diffPath(project, "main"))).status).toBe(200);
  });

  it("shows renames, deletions, mode changes, binary files and missing final newlines", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    await commitOn(api, project, "main", "Prepare", [
      { action: "create", file_path: "bin.dat", content: "AAEC", encoding: "base64" },
      { action: "create", file_path: "tool.sh", content: "echo\n" },
    ]);
    const commit = await commitOn(api, project, "main", "Mixed", [
      { action: "move", previous_path: "docs/a.md", file_path: "docs/b.md" },
      { action: "delete", file_path: "README.md" },
      { action: "chmod", file_path: "tool.sh", execute_filemode: true },
      { action: "update", file_path: "bin.dat", content: "AAED", encoding: "base64" },
      { action: "create", file_path: "last.txt", content: "no newline" },
    ]);
    const body = (await (await api.get(diffPath(project, commit.id))).json()) as Record<string, unknown>[];
    expect(body).toEqual([
      { diff: "@@ -1,2 +0,0 @@\n-# Hello\n-world\n", new_path: "README.md", old_path: "README.md", a_mode: "100644", b_mode: "0", new_file: false, renamed_file: false, deleted_file: true },
      { diff: "Binary files a/bin.dat and b/bin.dat differ\n", new_path: "bin.dat", old_path: "bin.dat", a_mode: "100644", b_mode: "100644", new_file: false, renamed_file: false, deleted_file: false },
      { diff: "", new_path: "docs/b.md", old_path: "docs/a.md", a_mode: "100644", b_mode: "100644", new_file: false, renamed_file: true, deleted_file: false },
      { diff: "@@ -0,0 +1 @@\n+no newline\n\\ No newline at end of file\n", new_path: "last.txt", old_path: "last.txt", a_mode: "0", b_mode: "100644", new_file: true, renamed_file: false, deleted_file: false },
      { diff: "", new_path: "tool.sh", old_path: "tool.sh", a_mode: "100644", b_mode: "100755", new_file: false, renamed_file: false, deleted_file: false },
    ]);
  });

  it("paginates with totals", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const commit = await commitOn(api, project, "main", "Many", [1, 2, 3].map((n) => ({ action: "create", file_path: `f${n}.txt`, content: `${n}\n` })));
    const res = await api.get(diffPath(project, commit.id), { query: { per_page: 2, page: 2 } });
    expect(((await res.json()) as { new_path: string }[]).map((d) => d.new_path)).toEqual(["f3.txt"]);
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-total-pages")).toBe("2");
    expect(res.headers.get("x-page")).toBe("2");
  });

  it("answers 404 Commit Not Found for an unknown sha", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    expect(await statusAndBody(await api.get(diffPath(project, "0".repeat(40))))).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await statusAndBody(await api.get(diffPath(project, "nope")))).toEqual([404, { message: "404 Commit Not Found" }]);
  });

  hidesPrivateProject(async (w, project) => w.as(await w.user()).get(diffPath(project, "main")));
  forbidsRoles(["guest"], (w, project, user) => w.as(user).get(diffPath(project, "main")));
});
