import { sql } from "drizzle-orm";
import type { TestProject, TestUser, World } from "../helpers/world";
import { unique } from "../helpers/world";

export type Json = Record<string, any>;

export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** A branch name no other test uses. */
export const branch = (prefix = "feature") => unique(prefix).replace(/[^a-zA-Z0-9-]/g, "-");

/** Creates a merge request through the API as `user` and returns its body. */
export async function createMergeRequest(w: World, user: TestUser, project: TestProject, body: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/merge_requests`, {
    json: { title: "A change", source_branch: branch(), target_branch: "main", ...body },
  });
  if (res.status !== 201) throw new Error(`create merge request: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/**
 * An issue written straight to the database (the issues API belongs to another domain), with its iid
 * from the project's internal id counter so it never collides with issues created through the API.
 */
export async function insertIssue(
  w: World,
  project: TestProject,
  opts: { title?: string; authorId?: number; confidential?: boolean; assigneeIds?: number[] } = {},
): Promise<{ id: number; iid: number }> {
  return w.issue(project, { title: "An issue", ...opts });
}

export async function rows<T = Json>(w: World, query: ReturnType<typeof sql>): Promise<T[]> {
  return w.db(async (db) => (await db.execute(query)).rows as T[]);
}

export type FileAction = { action: "create" | "update" | "delete"; file_path: string; content?: string };

/** Commits through the API (the repository domain's endpoint) and returns the new commit's id. */
export async function commit(w: World, user: TestUser, project: TestProject, branch: string, message: string, actions: FileAction[], extra: Json = {}): Promise<string> {
  const res = await w.as(user).post(`/projects/${project.id}/repository/commits`, { json: { branch, commit_message: message, actions, ...extra } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as Json).id;
}

/** The commit a branch points at (null when it does not exist). */
export async function branchHead(w: World, project: TestProject, name: string): Promise<string | null> {
  const found = await rows<{ target: string }>(w, sql`SELECT target FROM git_refs WHERE project_id = ${project.id} AND name = ${`refs/heads/${name}`}`);
  return found[0]?.target ?? null;
}

export async function commitRow(w: World, project: TestProject, oid: string): Promise<{ parents: string[]; message: string; author_name: string; tree: string }> {
  const found = await rows<{ parents: string[]; message: string; author_name: string; tree: string }>(
    w,
    sql`SELECT c.parents, c.message, c.author_name, c.tree FROM git_commits c WHERE c.pool_id = ${project.id} AND c.oid = ${oid}`,
  );
  return found[0];
}

/**
 * A project whose owner committed README.md and a.txt on `main` (protected for maintainers, as the first
 * push makes it), a `feature` branch from it with one more commit, and a merge request feature → main.
 */
export async function mergeFixture(w: World, opts: { visibility?: "private" | "internal" | "public"; mr?: Json } & Partial<Record<"developers" | "reporters" | "guests" | "maintainers", TestUser[]>> = {}) {
  const owner = await w.user();
  const project = await w.project({ owner, ...opts });
  const base = await commit(w, owner, project, "main", "Initial commit", [
    { action: "create", file_path: "README.md", content: "# Hello\n" },
    { action: "create", file_path: "a.txt", content: "1\n2\n3\n4\n5\n6\n7\n8\n" },
  ]);
  const feature = branch("feature");
  const head = await commit(w, owner, project, feature, "Change a\n\nThe body.", [{ action: "update", file_path: "a.txt", content: "1\nTWO\n3\n4\n5\n6\n7\n8\n" }], {
    start_branch: "main",
  });
  const mr = await createMergeRequest(w, owner, project, { source_branch: feature, target_branch: "main", title: "Change a", ...(opts.mr ?? {}) });
  return { owner, project, base, feature, head, mr };
}
