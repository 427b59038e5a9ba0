// `statistics=true` on the project endpoints: GitLab's ProjectStatistics, for reporters and admins,
// in one statement per page (lib/api/projects.rb, lib/api/entities/project_statistics.rb).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { lfsObjects, lfsObjectsProjects } from "../../db/schema";
import { worker } from "../helpers/client";
import { commitOn, smallRepo } from "../helpers/commits";
import { world, type World } from "../helpers/world";

type Json = Record<string, any>;
const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));

/** The stored size of a pool's git objects, read here independently of the endpoint. */
async function poolSize(w: World, poolId: number): Promise<number> {
  return w.db(async (db) => {
    const { rows } = await db.execute<{ n: string }>(sql`SELECT coalesce(sum(coalesce(octet_length(zdata), size)), 0) AS n FROM git_objects WHERE pool_id = ${poolId}`);
    return Number(rows[0]!.n);
  });
}

describe("GET /projects/:id?statistics=true", () => {
  it("answers the project's sizes: commits, repository, wiki, LFS, packages, snippets and uploads, summed in storage_size", async () => {
    const w = await world();
    const { api, project, owner } = await smallRepo(w);
    // An attachment of 11 bytes, a snippet of 3 + 5 bytes, a generic package file of 13 bytes, an LFS object of 1234 bytes.
    const form = new FormData();
    form.append("file", new File(["hello world"], "a.txt", { type: "text/plain" }));
    expect((await api.post(`/projects/${project.id}/uploads`, { multipart: form })).status).toBe(201);
    const snippet = await api.post(`/projects/${project.id}/snippets`, { json: { title: "t", visibility: "private", files: [{ file_path: "a.rb", content: "abc" }, { file_path: "b.rb", content: "defgh" }] } });
    expect(snippet.status).toBe(201);
    const put = await worker.fetch(
      new Request(`http://edgeforge.test/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`, { method: "PUT", headers: { "PRIVATE-TOKEN": owner.token }, body: "hello package" }),
    );
    expect(put.status).toBe(201);
    await w.db(async (db) => {
      const [lfs] = await db.insert(lfsObjects).values({ oid: `${"ab".repeat(31)}${String(project.id % 100).padStart(2, "0")}`, size: 1234, file: `lfs/${project.id}` }).returning();
      await db.insert(lfsObjectsProjects).values({ lfsObjectId: lfs!.id, projectId: project.id });
    });
    expect((await api.post(`/projects/${project.id}/wikis`, { json: { title: "Home", content: "welcome" } })).status).toBe(201);

    const res = await api.get(`/projects/${project.id}`, { query: { statistics: true } });
    expect(res.status).toBe(200);
    const stats = ((await res.json()) as Json).statistics;
    const repositorySize = await poolSize(w, project.id);
    expect(repositorySize).toBeGreaterThan(0);
    expect(stats.wiki_size).toBeGreaterThan(0);
    expect(stats).toEqual({
      commit_count: 3,
      storage_size: repositorySize + stats.wiki_size + 1234 + 13 + 8 + 11,
      repository_size: repositorySize,
      wiki_size: stats.wiki_size,
      lfs_objects_size: 1234,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 13,
      snippets_size: 8,
      uploads_size: 11,
      container_registry_size: 0,
    });
    // The commit count follows the default branch only; the repository size grows with every object.
    await commitOn(api, project, "side", "side", [{ action: "create", file_path: "s.txt", content: "s\n" }], { start_branch: "main" });
    const after = ((await (await api.get(`/projects/${project.id}`, { query: { statistics: true } })).json()) as Json).statistics;
    expect(after.commit_count).toBe(3);
    expect(after.repository_size).toBeGreaterThan(repositorySize);
  });

  it("is for reporters and admins; absent without the parameter, for guests and anonymous callers", async () => {
    const w = await world();
    const reporter = await w.user();
    const guest = await w.user();
    const admin = await w.user({ admin: true });
    const { project } = await smallRepo(w, { visibility: "public", reporters: [reporter], guests: [guest] });
    const stats = async (client: ReturnType<World["as"]>, query: Record<string, string | number | boolean> = { statistics: true }) => ((await (await client.get(`/projects/${project.id}`, { query })).json()) as Json).statistics;
    expect((await stats(w.as(reporter))).commit_count).toBe(3);
    expect((await stats(w.as(admin))).commit_count).toBe(3);
    expect(await stats(w.as(guest))).toBeUndefined();
    expect(await stats(w.anonymous)).toBeUndefined();
    expect(await stats(w.as(reporter), {})).toBeUndefined();
  });

  it("answers 400 for a statistics value that is not a boolean", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    const res = await api.get(`/projects/${project.id}`, { query: { statistics: "maybe" } });
    expect([res.status, await res.json()]).toEqual([400, { error: "statistics is invalid" }]);
  });
});

describe("GET /projects?statistics=true", () => {
  it("reads the statistics of a page in one statement, whatever the page's size", async () => {
    const w = await world();
    const owner = await w.user();
    for (let i = 0; i < 3; i++) {
      const project = await w.project({ owner });
      await commitOn(w.as(owner), project, "main", `c${i}`, [{ action: "create", file_path: "a.txt", content: `${i}\n` }]);
    }
    const list = async (query: Record<string, string | number | boolean>) => w.as(owner).get("/projects", { query: { owned: true, ...query } });
    const one = await list({ per_page: 1, statistics: true });
    const three = await list({ per_page: 3, statistics: true });
    const plain = await list({ per_page: 3 });
    expect(queryCount(three)).toBe(queryCount(one));
    expect(queryCount(three)).toBe(queryCount(plain) + 1);
    const rows = (await three.json()) as Json[];
    expect(rows.map((r) => r.statistics.commit_count)).toEqual([1, 1, 1]);
    expect(((await plain.json()) as Json[]).every((r) => !("statistics" in r))).toBe(true);
    // `simple` has no statistics (BasicProjectDetails).
    expect(((await (await list({ simple: true, statistics: true })).json()) as Json[]).every((r) => !("statistics" in r))).toBe(true);
  });

  it("shows them in group and user project lists only for the projects the caller reports on", async () => {
    const w = await world();
    const owner = await w.user();
    const guest = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, visibility: "public", guests: [guest] });
    await commitOn(w.as(owner), project, "main", "c", [{ action: "create", file_path: "a.txt", content: "a\n" }]);
    const ownerRows = (await (await w.as(owner).get(`/groups/${group.id}/projects`, { query: { statistics: true } })).json()) as Json[];
    expect(ownerRows[0]!.statistics.commit_count).toBe(1);
    const guestRows = (await (await w.as(guest).get(`/groups/${group.id}/projects`, { query: { statistics: true } })).json()) as Json[];
    expect(guestRows[0]!.statistics).toBeUndefined();
    const mine = await w.project({ owner });
    const userRows = (await (await w.as(owner).get(`/users/${owner.id}/projects`, { query: { statistics: true } })).json()) as Json[];
    expect(userRows.find((r) => r.id === mine.id)!.statistics.commit_count).toBe(0);
  });
});
