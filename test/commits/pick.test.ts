import { describe, expect, it } from "vitest";
import { readRef } from "../../functions/shared/git/store/refs";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestProject, type World } from "../helpers/world";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";

type Json = Record<string, any>;

const COMMIT_KEYS = [
  "id", "short_id", "created_at", "parent_ids", "title", "message", "author_name", "author_email", "authored_date",
  "committer_name", "committer_email", "committed_date", "trailers", "web_url",
];

async function tip(w: World, project: TestProject, branch: string) {
  return w.db(async (db) => (await readRef(db, project.id, `refs/heads/${branch}`))?.target ?? null);
}

/** main plus a `feature` branch whose commit (by Jane) edits docs/a.md. */
async function pickFixture(opts: Parameters<typeof smallRepo>[1] = {}) {
  const w = await world();
  const repo = await smallRepo(w, opts);
  const change = await commitOn(repo.api, repo.project, "feature", "Edit a\n\nDetails.", [{ action: "update", file_path: "docs/a.md", content: "a\nB\n" }], {
    start_branch: "main",
    author_name: "Jane",
    author_email: "jane@example.com",
  });
  return { w, ...repo, change };
}

describe("POST /projects/:id/repository/commits/:sha/cherry_pick", () => {
  it("applies the commit on the branch tip: 201 with the Commit entity and GitLab's message", async () => {
    const { w, project, api, owner, commits, change } = await pickFixture();
    const res = await api.post(`${commitsPath(project)}/${change.id}/cherry_pick`, { json: { branch: "main" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(Object.keys(body)).toEqual(COMMIT_KEYS);
    expect(body).toMatchObject({
      parent_ids: [commits[0].id],
      title: "Edit a",
      message: `Edit a\n\nDetails.\n\n(cherry picked from commit ${change.id})`,
      author_name: "Jane",
      author_email: "jane@example.com",
      committer_name: owner.name,
      committer_email: owner.email,
    });
    expect(await tip(w, project, "main")).toBe(body.id);
    const detail = (await (await api.get(`${commitsPath(project)}/main`)).json()) as Json;
    expect(detail.stats).toEqual({ additions: 1, deletions: 1, total: 2 });
    // Again: nothing left to apply.
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${change.id}/cherry_pick`, { json: { branch: "main" } }))).toEqual([
      400,
      {
        message:
          "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.",
        error_code: "empty",
      },
    ]);
  });

  it("takes a branch name as sha and a custom message", async () => {
    const { project, api } = await pickFixture();
    const res = await api.post(`${commitsPath(project)}/feature/cherry_pick`, { form: { branch: "main", message: "Picked by hand" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Json).message).toBe("Picked by hand");
  });

  it("dry runs without moving the branch: 200 success, or the error with dry_run error", async () => {
    const { w, project, api, change } = await pickFixture();
    const before = await tip(w, project, "main");
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${change.id}/cherry_pick`, { json: { branch: "main", dry_run: true } }))).toEqual([
      200,
      { dry_run: "success" },
    ]);
    expect(await tip(w, project, "main")).toBe(before);
    await commitOn(api, project, "main", "Conflicting", [{ action: "update", file_path: "docs/a.md", content: "a\nX\n" }]);
    const conflict = {
      message:
        "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.",
      error_code: "conflict",
    };
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${change.id}/cherry_pick`, { json: { branch: "main" } }))).toEqual([400, conflict]);
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${change.id}/cherry_pick`, { json: { branch: "main", dry_run: true } }))).toEqual([
      400,
      { ...conflict, dry_run: "error" },
    ]);
  });

  it("answers 404 for an unknown commit (first) or branch, and 400 for bad parameters", async () => {
    const { project, api, change } = await pickFixture();
    const post = async (sha: string, body: Json) => statusAndBody(await api.post(`${commitsPath(project)}/${sha}/cherry_pick`, { json: body }));
    expect(await post(change.id, { branch: "nope" })).toEqual([404, { message: "404 Branch Not Found" }]);
    expect(await post("1".repeat(40), { branch: "nope" })).toEqual([404, { message: "404 Commit Not Found" }]);
    expect(await post(change.id, {})).toEqual([400, { error: "branch is missing" }]);
    expect(await post(change.id, { branch: "" })).toEqual([400, { error: "branch is empty" }]);
    expect(await post(change.id, { branch: "main", dry_run: "sometimes" })).toEqual([400, { error: "dry_run is invalid" }]);
  });

  requiresAuthentication(async (w) => {
    const project = await w.project({ visibility: "public" });
    return w.anonymous.post(`${commitsPath(project)}/main/cherry_pick`, { json: { branch: "main" } });
  });

  it("needs push access: reporters 403, guests of private projects 403 without a reason", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const { project, commits } = await smallRepo(w, { reporters: [reporter], guests: [guest] });
    const url = `${commitsPath(project)}/${commits[1].id}/cherry_pick`;
    expect(await statusAndBody(await w.as(reporter).post(url, { json: { branch: "main" } }))).toEqual([
      403,
      { message: "403 Forbidden - You are not allowed to push into this branch" },
    ]);
    expect(await statusAndBody(await w.as(guest).post(url, { json: { branch: "main" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("POST /projects/:id/repository/commits/:sha/revert", () => {
  it("counts the lines of a pick as git does: the picked commit's counts, the other way round for a revert", async () => {
    const { project, api } = await pickFixture();
    const grow = await commitOn(api, project, "grow", "Grow a", [{ action: "update", file_path: "docs/a.md", content: "a\nB\nc\nd\n" }], { start_branch: "main" });
    const stats = async (sha: string) => ((await (await api.get(`${commitsPath(project)}/${sha}`)).json()) as Json).stats;
    expect(await stats(grow.id)).toEqual({ additions: 3, deletions: 1, total: 4 });
    const picked = (await (await api.post(`${commitsPath(project)}/${grow.id}/cherry_pick`, { json: { branch: "main" } })).json()) as Json;
    expect(await stats(picked.id)).toEqual({ additions: 3, deletions: 1, total: 4 });
    const reverted = (await (await api.post(`${commitsPath(project)}/${picked.id}/revert`, { json: { branch: "main" } })).json()) as Json;
    expect(await stats(reverted.id)).toEqual({ additions: 1, deletions: 3, total: 4 });
  });

  it("reverts with GitLab's message, the user as author; a second revert is empty", async () => {
    const { w, project, api, owner, commits } = await pickFixture();
    const [third] = commits;
    const res = await api.post(`${commitsPath(project)}/${third.id}/revert`, { json: { branch: "main" } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(201);
    expect(Object.keys(body)).toEqual(COMMIT_KEYS);
    expect(body).toMatchObject({
      parent_ids: [third.id],
      title: 'Revert "Update README"',
      message: `Revert "Update README"\n\nThis reverts commit ${third.id}`,
      author_name: owner.name,
      committer_name: owner.name,
    });
    expect(await tip(w, project, "main")).toBe(body.id);
    const failure = {
      message:
        "Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.",
      error_code: "empty",
    };
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${third.id}/revert`, { json: { branch: "main" } }))).toEqual([400, failure]);
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/${third.id}/revert`, { json: { branch: "main", dry_run: true } }))).toEqual([
      400,
      { ...failure, dry_run: "error" },
    ]);
  });

  it("dry runs, ignores message, and answers 404s", async () => {
    const { w, project, api, commits, change } = await pickFixture();
    const before = await tip(w, project, "feature");
    const url = `${commitsPath(project)}/${change.id}/revert`;
    expect(await statusAndBody(await api.post(url, { json: { branch: "feature", dry_run: true } }))).toEqual([200, { dry_run: "success" }]);
    expect(await tip(w, project, "feature")).toBe(before);
    const res = await api.post(url, { json: { branch: "feature", message: "not used by revert" } });
    expect(((await res.json()) as Json).message).toBe(`Revert "Edit a"\n\nThis reverts commit ${change.id}`);
    expect(await statusAndBody(await api.post(url, { json: { branch: "gone" } }))).toEqual([404, { message: "404 Branch Not Found" }]);
    expect(await statusAndBody(await api.post(`${commitsPath(project)}/zzz/revert`, { json: { branch: "main" } }))).toEqual([
      404,
      { message: "404 Commit Not Found" },
    ]);
    expect(commits).toHaveLength(3);
  });
});
