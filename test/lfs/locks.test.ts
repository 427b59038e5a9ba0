import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { namespaces } from "../../db/schema";
import { world, type TestUser } from "../helpers/world";
import { BASE } from "../helpers/client";
import { LFS_JSON, locks } from "../helpers/lfs";

type Json = Record<string, any>;
const HELP = { documentation_url: `${BASE}/help` };
const FORBIDDEN = [403, { message: "Access forbidden. Check your access level.", ...HELP }];
const NOT_FOUND = [404, { message: "Not found.", ...HELP }];
const answer = async (res: Response) => [res.status, await res.json()];
const ISO_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const lockShape = (path: string, owner: TestUser) => ({ path, id: expect.stringMatching(/^\d+$/), locked_at: expect.stringMatching(ISO_SECONDS), owner: { name: owner.name } });

describe("POST /<full_path>.git/info/lfs/locks", () => {
  it("locks a path (201), and answers 409 with the existing lock to anyone who asks again", async () => {
    const w = await world();
    const [dev, other] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev, other] });
    const res = await locks(project, dev, "POST", "", { path: "assets/a.bin", ref: { name: "refs/heads/main" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain(LFS_JSON);
    const created = (await res.json()) as Json;
    expect(created).toEqual({ lock: lockShape("assets/a.bin", dev) });
    expect(Object.keys(created.lock)).toEqual(["path", "id", "locked_at", "owner"]);
    for (const who of [dev, other]) {
      expect(await answer(await locks(project, who, "POST", "", { path: "assets/a.bin" }))).toEqual([409, { lock: created.lock, message: "already locked", ...HELP }]);
    }
    // The same path in another project is another lock.
    const elsewhere = await w.project({ developers: [dev] });
    expect((await locks(elsewhere, dev, "POST", "", { path: "assets/a.bin" })).status).toBe(201);
  });

  it("gives one lock to one of many concurrent callers", async () => {
    const w = await world();
    const devs = [await w.user(), await w.user(), await w.user(), await w.user()];
    const project = await w.project({ developers: devs });
    const statuses = await Promise.all(devs.map(async (dev) => (await locks(project, dev, "POST", "", { path: "race.bin" })).status));
    expect(statuses.sort()).toEqual([201, 409, 409, 409]);
    expect(((await (await locks(project, devs[0], "GET")).json()) as Json).locks).toHaveLength(1);
  });

  it("refuses a missing or over-long path (422) and a body that is not JSON", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await answer(await locks(project, dev, "POST", "", {}))).toEqual([422, { message: "Validation failed: Path can't be blank", ...HELP }]);
    expect(await answer(await locks(project, dev, "POST", "", { path: " " }))).toEqual([422, { message: "Validation failed: Path can't be blank", ...HELP }]);
    expect(await answer(await locks(project, dev, "POST", "", { path: "x".repeat(512) }))).toEqual([422, { message: "Validation failed: Path is too long (maximum is 511 characters)", ...HELP }]);
    expect((await locks(project, dev, "POST", "", "{nope")).status).toBe(422);
    expect((await locks(project, dev, "POST", "", { path: "x".repeat(511) })).status).toBe(201);
  });

  it("needs push access: reporters 403, strangers 404 on private projects, anonymous 401", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const open = await w.project({ visibility: "public" });
    expect(await answer(await locks(project, reporter, "POST", "", { path: "a" }))).toEqual(FORBIDDEN);
    expect(await answer(await locks(project, w.stranger, "POST", "", { path: "a" }))).toEqual(NOT_FOUND);
    expect(await answer(await locks(open, w.stranger, "POST", "", { path: "a" }))).toEqual(FORBIDDEN);
    const anonymous = await locks(open, null, "POST", "", { path: "a" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="GitLab"');
  });
});

describe("GET /<full_path>.git/info/lfs/locks", () => {
  it("lists the project's locks, filtered by path and id; readers may list", async () => {
    const w = await world();
    const [dev, reporter] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev], reporters: [reporter] });
    const a = ((await (await locks(project, dev, "POST", "", { path: "a.bin" })).json()) as Json).lock;
    const b = ((await (await locks(project, dev, "POST", "", { path: "dir/b.bin" })).json()) as Json).lock;
    expect(await answer(await locks(project, reporter, "GET"))).toEqual([200, { locks: [a, b] }]);
    expect(await answer(await locks(project, reporter, "GET", "?path=dir%2Fb.bin&refspec=refs%2Fheads%2Fmain"))).toEqual([200, { locks: [b] }]);
    expect(await answer(await locks(project, reporter, "GET", `?id=${a.id}`))).toEqual([200, { locks: [a] }]);
    for (const query of ["?id=abc", "?id=99999999999", "?path=none"]) expect(await answer(await locks(project, reporter, "GET", query))).toEqual([200, { locks: [] }]);
  });

  it("lets anonymous callers list a public project's locks; refuses private ones", async () => {
    const w = await world();
    const open = await w.project({ visibility: "public" });
    const closed = await w.project({ visibility: "private" });
    expect(await answer(await locks(open, null, "GET"))).toEqual([200, { locks: [] }]);
    expect((await locks(closed, null, "GET")).status).toBe(401);
    expect(await answer(await locks(closed, w.stranger, "GET"))).toEqual(NOT_FOUND);
  });

  it("honours lfs_enabled (the project's own, else the namespace's)", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group });
    const put = (json: Json) => w.as(owner).put(`/projects/${project.id}`, { json });
    expect(((await (await put({ lfs_enabled: false })).json()) as Json).lfs_enabled).toBe(false);
    expect(await answer(await locks(project, owner, "GET"))).toEqual(FORBIDDEN);
    expect(await answer(await locks(project, owner, "POST", "", { path: "a" }))).toEqual(FORBIDDEN);
    // The project's own true wins over a namespace that turned LFS off.
    await w.db((db) => db.update(namespaces).set({ lfsEnabled: false }).where(eq(namespaces.id, group.id)));
    expect(((await (await put({ lfs_enabled: true })).json()) as Json).lfs_enabled).toBe(true);
    expect((await locks(project, owner, "GET")).status).toBe(200);
  });

  it("takes lfs_enabled on POST /projects; unset, the entity shows the namespace's", async () => {
    const w = await world();
    const owner = await w.user();
    const off = (await (await w.as(owner).post("/projects", { json: { name: "lfs-off", lfs_enabled: false } })).json()) as Json;
    expect(off.lfs_enabled).toBe(false);
    expect(await answer(await locks(off.path_with_namespace, owner, "GET"))).toEqual(FORBIDDEN);
    const unset = (await (await w.as(owner).post("/projects", { json: { name: "lfs-unset" } })).json()) as Json;
    expect(unset.lfs_enabled).toBe(true);
    const [status, body] = await answer(await w.as(owner).post("/projects", { json: { name: "lfs-bad", lfs_enabled: "maybe" } }));
    expect([status, body]).toEqual([400, { error: "lfs_enabled is invalid" }]);
  });
});

describe("POST /<full_path>.git/info/lfs/locks/verify", () => {
  it("splits the project's locks into the caller's and others'", async () => {
    const w = await world();
    const [dev, other] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev, other] });
    const mine = ((await (await locks(project, dev, "POST", "", { path: "mine.bin" })).json()) as Json).lock;
    const theirs = ((await (await locks(project, other, "POST", "", { path: "theirs.bin" })).json()) as Json).lock;
    expect(await answer(await locks(project, dev, "POST", "/verify", { ref: { name: "refs/heads/main" } }))).toEqual([200, { ours: [mine], theirs: [theirs] }]);
    expect(await answer(await locks(project, other, "POST", "/verify", {}))).toEqual([200, { ours: [theirs], theirs: [mine] }]);
  });

  it("is an upload request: reporters get 403", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    expect(await answer(await locks(project, reporter, "POST", "/verify", {}))).toEqual(FORBIDDEN);
  });
});

describe("POST /<full_path>.git/info/lfs/locks/:id/unlock", () => {
  it("lets the owner unlock; others need force and maintainer access", async () => {
    const w = await world();
    const [dev, other, maintainer] = [await w.user(), await w.user(), await w.user()];
    const project = await w.project({ developers: [dev, other], maintainers: [maintainer] });
    const take = async (path: string) => ((await (await locks(project, dev, "POST", "", { path })).json()) as Json).lock;
    const a = await take("a.bin");
    expect(await answer(await locks(project, other, "POST", `/${a.id}/unlock`, {}))).toEqual([403, { message: `a.bin is locked by GitLab User ${dev.id}`, ...HELP }]);
    expect(await answer(await locks(project, other, "POST", `/${a.id}/unlock`, { force: true }))).toEqual([403, { message: "You must have maintainer access to force delete a lock", ...HELP }]);
    // Only JSON's true forces (`params[:force] == true`).
    expect((await locks(project, maintainer, "POST", `/${a.id}/unlock`, { force: "true" })).status).toBe(403);
    expect(await answer(await locks(project, dev, "POST", `/${a.id}/unlock`, {}))).toEqual([200, { lock: a }]);
    expect(await answer(await locks(project, dev, "POST", `/${a.id}/unlock`, {}))).toEqual([404, { message: "Lock not found", ...HELP }]);
    const b = await take("b.bin");
    expect(await answer(await locks(project, maintainer, "POST", `/${b.id}/unlock`, { force: true }))).toEqual([200, { lock: b }]);
    expect(await answer(await locks(project, dev, "GET"))).toEqual([200, { locks: [] }]);
  });

  it("answers 404 for ids of other projects and malformed ids; reporters get 403", async () => {
    const w = await world();
    const [dev, reporter] = [await w.user(), await w.user()];
    const project = await w.project({ developers: [dev], reporters: [reporter] });
    const other = await w.project({ developers: [dev] });
    const a = ((await (await locks(other, dev, "POST", "", { path: "a.bin" })).json()) as Json).lock;
    for (const id of [a.id, "abc", "99999999999"]) expect(await answer(await locks(project, dev, "POST", `/${id}/unlock`, {}))).toEqual([404, { message: "Lock not found", ...HELP }]);
    expect(await answer(await locks(other, reporter, "POST", `/${a.id}/unlock`, {}))).toEqual(NOT_FOUND);
    const mine = ((await (await locks(project, dev, "POST", "", { path: "a.bin" })).json()) as Json).lock;
    expect(await answer(await locks(project, reporter, "POST", `/${mine.id}/unlock`, {}))).toEqual(FORBIDDEN);
  });
});
