// Shared set-up for the commits API tests: repositories made through `POST /repository/commits`.
import { expect } from "vitest";
import type { Client } from "./client";
import type { TestProject, TestUser, World } from "./world";

export type Action = Record<string, unknown>;

export const commitsPath = (project: { id: number }) => `/projects/${project.id}/repository/commits`;

/** Commits through the API and returns the 201 body (fails the test otherwise). */
export async function commitOn(api: Client, project: TestProject, branch: string, message: string, actions: Action[], extra: Record<string, unknown> = {}) {
  const res = await api.post(commitsPath(project), { json: { branch, commit_message: message, actions, ...extra } });
  const body = (await res.json()) as Record<string, unknown>;
  expect([res.status, body]).toEqual([201, expect.objectContaining({ id: expect.any(String) })]);
  return body as { id: string; parent_ids: string[]; message: string; stats?: { additions: number; deletions: number; total: number } };
}

/**
 * A project with an owner (maintainer rights through ownership) and a small history on `main`:
 * README.md, then docs/a.md, then an update of README.md.
 */
export async function smallRepo(w: World, opts: { visibility?: "private" | "internal" | "public"; archived?: boolean } & Partial<Record<"guests" | "reporters" | "developers" | "maintainers", TestUser[]>> = {}) {
  const owner = await w.user();
  const project = await w.project({ owner, ...opts, archived: false });
  const api = w.as(owner);
  const first = await commitOn(api, project, "main", "Initial commit", [{ action: "create", file_path: "README.md", content: "# Hello\n" }]);
  const second = await commitOn(api, project, "main", "Add docs\n\nWith a body.", [{ action: "create", file_path: "docs/a.md", content: "a\nb\n" }]);
  const third = await commitOn(api, project, "main", "Update README", [{ action: "update", file_path: "README.md", content: "# Hello\nworld\n" }]);
  if (opts.archived) {
    const { projects } = await import("../../db/schema");
    const { eq } = await import("drizzle-orm");
    await w.db((db) => db.update(projects).set({ archived: true }).where(eq(projects.id, project.id)));
  }
  return { owner, project, api, commits: [third, second, first] };
}
