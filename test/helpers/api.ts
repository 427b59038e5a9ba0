import { unique, type TestProject, type TestUser, type World } from "./world";

/**
 * Fixtures made through the API (the endpoint of another domain, called as a client would), and the
 * small response helpers the tests of several domains share.
 */
export type Json = Record<string, any>;

/** The statement count the Worker reports for a request (`x-query-count`). */
export const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** A search token (letters and digits only) that no other test's issues contain. */
export const token = () => unique("t").replace(/[^a-z0-9]/gi, "");

/** A branch name no other test uses. */
export const branch = (prefix = "feature") => unique(prefix).replace(/[^a-zA-Z0-9-]/g, "-");

/** A project with an owner and members of each role, and a stranger-free world. */
export async function team(w: World, visibility: "private" | "internal" | "public" = "private") {
  const [owner, reporter, guest] = [await w.user(), await w.user(), await w.user()];
  const project = await w.project({ visibility, owner, reporters: [reporter], guests: [guest] });
  return { owner, reporter, guest, project };
}

/** Creates an issue through the API and returns its JSON (fails the test on any other status). */
export async function createIssue(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/issues`, { json: { title: unique("issue"), ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create issue: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function createLabel(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/labels`, { json: { name: unique("label"), color: "#FF0000", ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create label: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function createMilestone(w: World, user: TestUser, project: TestProject, json: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/milestones`, { json: { title: unique("milestone"), ...json } });
  const body = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create milestone: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Creates a merge request through the API as `user` and returns its body. */
export async function createMergeRequest(w: World, user: TestUser, project: TestProject, body: Json = {}): Promise<Json> {
  const res = await w.as(user).post(`/projects/${project.id}/merge_requests`, {
    json: { title: "A change", source_branch: branch(), target_branch: "main", ...body },
  });
  if (res.status !== 201) throw new Error(`create merge request: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

export type FileAction = { action: "create" | "update" | "delete"; file_path: string; content?: string };

/** Commits through the API (the repository domain's endpoint) and returns the new commit's id. */
export async function commit(w: World, user: TestUser, project: TestProject, branch: string, message: string, actions: FileAction[], extra: Json = {}): Promise<string> {
  const res = await w.as(user).post(`/projects/${project.id}/repository/commits`, { json: { branch, commit_message: message, actions, ...extra } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as Json).id;
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
