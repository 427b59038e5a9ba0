// Repositories for the branches, tags, repository (files, tree) and merge request tests, built through the
// git core, and the ref rows some tests set directly.
import { eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { projects } from "../../db/schema";
import { commitFiles, createTag, type CommitAction, type Repo } from "../../functions/shared/git";
import { withDb } from "./db";
import type { TestProject, TestUser, World } from "./world";

type Visibility = "private" | "internal" | "public";
type Roles = Partial<Record<"guests" | "reporters" | "developers" | "maintainers", TestUser[]>>;

export const repoOfProject = (project: { id: number }, defaultBranch: string | null = "main"): Repo => ({
  projectId: project.id,
  poolId: project.id,
  defaultBranch,
});

/** Commits `actions` on `branch` (created from `startBranch` when given); returns the new commit id. */
export async function commitTo(
  project: { id: number },
  branch: string,
  actions: CommitAction[],
  opts: { message?: string; startBranch?: string; at?: Date; author?: { name: string; email: string } } = {},
): Promise<string> {
  const result = await withDb((db) =>
    commitFiles(db, repoOfProject(project), {
      branch,
      startBranch: opts.startBranch,
      actions,
      message: opts.message ?? `Change ${branch}`,
      committer: opts.author ?? { name: "Alice", email: "alice@example.com" },
      now: opts.at,
    }),
  );
  if (!result.ok) throw new Error(result.failure.kind);
  return result.commit.oid;
}

export async function tagAt(project: { id: number }, name: string, target: string, message?: string, at?: Date) {
  const result = await withDb((db) =>
    createTag(db, repoOfProject(project), { name, target, message, tagger: { name: "Tagger", email: "tagger@example.com" }, now: at }),
  );
  expect(result.kind).toBe("created");
}

/**
 * A project with an owner and a small history on `main`:
 * 1. README.md, src/app.js                (Initial commit, 2024-01-01)
 * 2. docs/guide/intro.md, bin/run.sh (755) (Add docs, 2024-01-02)
 * 3. README.md updated                     (Update README, 2024-01-03)
 */
export async function smallRepo(w: World, opts: { visibility?: Visibility } & Roles = {}) {
  const owner = await w.user();
  const project: TestProject = await w.project({ owner, ...opts });
  const first = await commitTo(project, "main", [
    { action: "create", filePath: "README.md", content: "# Hello\n" },
    { action: "create", filePath: "src/app.js", content: "one\ntwo\n" },
  ], { message: "Initial commit", at: new Date("2024-01-01T10:00:00Z") });
  const second = await commitTo(project, "main", [
    { action: "create", filePath: "docs/guide/intro.md", content: "intro\n" },
    { action: "create", filePath: "bin/run.sh", content: "#!/bin/sh\n", executeFilemode: true },
  ], { message: "Add docs", at: new Date("2024-01-02T10:00:00Z") });
  const third = await commitTo(project, "main", [{ action: "update", filePath: "README.md", content: "# Hello\nworld\n" }], {
    message: "Update README",
    at: new Date("2024-01-03T10:00:00Z"),
  });
  return { owner, project, api: w.as(owner), commits: { first, second, third } };
}

export async function projectRow(project: { id: number }) {
  return withDb(async (db) => (await db.select().from(projects).where(eq(projects.id, project.id)))[0]);
}

/** Points `refs/heads/<name>` of the project at `oid` (no objects: only the ref the sha check reads). */
export async function setBranch(w: World, project: TestProject, name: string, oid: string) {
  await w.db((db) =>
    db.execute(sql`INSERT INTO git_refs (project_id, name, target) VALUES (${project.id}, ${`refs/heads/${name}`}, ${oid})
      ON CONFLICT (project_id, name) DO UPDATE SET target = excluded.target`),
  );
}

/** A protected branch row (the protected branches API is another domain's). */
export async function protectBranch(w: World, project: TestProject, name: string): Promise<number> {
  return w.db(async (db) => {
    const result = await db.execute<{ id: number }>(sql`INSERT INTO protected_branches (project_id, name) VALUES (${project.id}, ${name}) RETURNING id`);
    return Number(result.rows[0].id);
  });
}
