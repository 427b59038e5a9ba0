import { describe, expect, it } from "vitest";
import type { Client } from "../helpers/client";
import { world } from "../helpers/world";
import { issue } from "../helpers/noteables";
import { smallRepo } from "../helpers/git";

/**
 * Creates that must stay unique, raced: 32 identical requests at once. Exactly one succeeds; every
 * other one gets GitLab's answer for a duplicate, never a 5xx and never a second row.
 */
const RACERS = 32;

async function race(send: () => Promise<Response>): Promise<{ statuses: number[]; losers: unknown[] }> {
  const responses = await Promise.all(Array.from({ length: RACERS }, () => send()));
  const statuses = responses.map((r) => r.status);
  const bodies = await Promise.all(responses.map(async (r) => (r.headers.get("content-type")?.includes("json") ? r.json() : r.text())));
  const losers = bodies.filter((_, i) => statuses[i] >= 300);
  return { statuses, losers };
}

function expectOneWinner(statuses: number[], success: number, loser: number) {
  expect(statuses.filter((s) => s === success)).toHaveLength(1);
  expect(statuses.filter((s) => s === loser)).toHaveLength(RACERS - 1);
}

describe("32 concurrent identical creates", () => {
  it("POST /projects/:id/merge_requests: one opens, the rest get 409 naming it", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const api: Client = w.as(dev);
    const { statuses, losers } = await race(() =>
      api.post(`/projects/${project.id}/merge_requests`, { json: { title: "Same", source_branch: "feature-race", target_branch: "main" } }),
    );
    expectOneWinner(statuses, 201, 409);
    const open = (await (await api.get(`/projects/${project.id}/merge_requests`, { query: { state: "opened" } })).json()) as { iid: number }[];
    expect(open).toHaveLength(1);
    for (const body of losers) expect(body).toEqual({ message: [`Another open merge request already exists for this source branch: !${open[0].iid}`] });
    // The losers' statements rolled back whole: the next merge request takes the next iid.
    const next = await api.post(`/projects/${project.id}/merge_requests`, { json: { title: "Next", source_branch: "other", target_branch: "main" } });
    expect(((await next.json()) as { iid: number }).iid).toBe(open[0].iid + 1);
  });

  it("POST /projects/:id/labels: one label, the rest 409 Label already exists", async () => {
    const w = await world();
    const project = await w.project();
    const { statuses, losers } = await race(() => w.root.post(`/projects/${project.id}/labels`, { json: { name: "raced", color: "#ff0000" } }));
    expectOneWinner(statuses, 201, 409);
    for (const body of losers) expect(body).toEqual({ message: "Label already exists" });
  });

  it("POST /projects/:id/members: one member, the rest 409 Member already exists", async () => {
    const w = await world();
    const project = await w.project();
    const user = await w.user();
    const { statuses, losers } = await race(() => w.root.post(`/projects/${project.id}/members`, { json: { user_id: user.id, access_level: 30 } }));
    expectOneWinner(statuses, 201, 409);
    for (const body of losers) expect(body).toEqual({ message: "Member already exists" });
  });

  it("POST /projects/:id/issues/:iid/award_emoji: one award, the rest GitLab's taken 404", async () => {
    const w = await world();
    const user = await w.user();
    const project = await w.project({ visibility: "public", developers: [user] });
    const i = await issue(w, project);
    const { statuses, losers } = await race(() => w.as(user).post(`/projects/${project.id}/issues/${i.iid}/award_emoji`, { json: { name: "thumbsup" } }));
    expectOneWinner(statuses, 201, 404);
    for (const body of losers) expect(body).toEqual({ message: '404 Award Emoji ["Name has already been taken"] Not Found' });
  });

  it("POST /projects/:id/repository/branches: one branch, the rest 400 Branch already exists", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const { statuses, losers } = await race(() => api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "raced", ref: "main" } }));
    expectOneWinner(statuses, 201, 400);
    for (const body of losers) expect(body).toEqual({ message: "Branch already exists" });
  });

  it("POST /projects/:id/repository/tags: one tag, the rest 400 Tag already exists", async () => {
    const w = await world();
    const { project, api } = await smallRepo(w);
    const { statuses, losers } = await race(() => api.post(`/projects/${project.id}/repository/tags`, { json: { tag_name: "v1.0", ref: "main" } }));
    expectOneWinner(statuses, 201, 400);
    for (const body of losers) expect(body).toEqual({ message: "Tag v1.0 already exists" });
  });
});
