import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { smallRepo } from "../helpers/git";
import { world } from "../helpers/world";

const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, "0") + line;

/** A protocol v2 `fetch` of `want` with `done`: the server answers with a pack. */
async function fetchPack(fullPath: string, token: string, want: string) {
  const body = pkt("command=fetch\n") + "0001" + pkt(`want ${want}\n`) + pkt("no-progress\n") + pkt("done\n") + "0000";
  const res = await worker.fetch(
    new Request(`${BASE}/${fullPath}.git/git-upload-pack`, {
      method: "POST",
      body,
      headers: { Authorization: `Basic ${btoa(`oauth2:${token}`)}`, "Git-Protocol": "version=2", "Content-Type": "application/x-git-upload-pack-request" },
    }),
  );
  await res.arrayBuffer();
  return res.status;
}

describe("GET /projects/:id/statistics", () => {
  it("counts each git fetch of the day", async () => {
    const w = await world();
    const { owner, project, api, commits } = await smallRepo(w);
    const empty = await api.get(`/projects/${project.id}/statistics`);
    expect([empty.status, await empty.json()]).toEqual([200, { fetches: { total: 0, days: [] } }]);
    expect(await fetchPack(project.fullPath, owner.token, commits.third)).toBe(200);
    expect(await fetchPack(project.fullPath, owner.token, commits.third)).toBe(200);
    const res = await api.get(`/projects/${project.id}/statistics`);
    const today = new Date().toISOString().slice(0, 10);
    expect(await res.json()).toEqual({ fetches: { total: 2, days: [{ count: 2, date: today }] } });
  });

  it("answers the last 30 days, newest first", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    await w.db((db) =>
      db.execute(sql`INSERT INTO project_daily_statistics (project_id, date, fetch_count) VALUES
        (${project.id}, current_date - 1, 3), (${project.id}, current_date - 5, 4), (${project.id}, current_date - 40, 9)`),
    );
    const body = (await (await w.as(owner).get(`/projects/${project.id}/statistics`)).json()) as { fetches: { total: number; days: { count: number }[] } };
    expect(body.fetches.total).toBe(7);
    expect(body.fetches.days.map((d) => d.count)).toEqual([3, 4]);
  });

  it("is for reporters and up; strangers of a private project get 404", async () => {
    const w = await world();
    const guest = await w.user();
    const reporter = await w.user();
    const project = await w.project({ guests: [guest], reporters: [reporter] });
    expect((await w.as(reporter).get(`/projects/${project.id}/statistics`)).status).toBe(200);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/statistics`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/statistics`))).toEqual([404, { message: "404 Project Not Found" }]);
    const open = await w.project({ visibility: "public" });
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${open.id}/statistics`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});
