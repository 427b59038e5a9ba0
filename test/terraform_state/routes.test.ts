import { describe, expect, it } from "vitest";
import { request, statusAndBody, worker } from "../helpers/client";
import { ciProject, claim, createPipeline, projectRunner } from "../helpers/ci";
import { world } from "../helpers/world";

/** Requests as Terraform's `http` backend sends them: Basic credentials, JSON bodies. */
async function tf(method: string, path: string, auth: { user: string; password: string } | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = `Basic ${btoa(`${auth.user}:${auth.password}`)}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) }));
}

const stateOf = (serial: number, extra: Record<string, unknown> = {}) => ({ version: 4, terraform_version: "1.5.7", serial, lineage: "l-1", outputs: {}, resources: [], ...extra });
const lockInfo = (id: string) => ({ ID: id, Operation: "OperationTypeApply", Info: "", Who: "me@laptop", Version: "1.5.7", Created: "2026-12-07T17:00:00Z", Path: "" });

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const developer = await w.user();
  const reporter = await w.user();
  const project = await w.project({ maintainers: [maintainer], developers: [developer], reporters: [reporter] });
  const token = async (u: { id: number }) => {
    const res = await w.root.post(`/users/${u.id}/personal_access_tokens`, { json: { name: "tf", scopes: ["api"] } });
    return ((await res.json()) as { token: string }).token;
  };
  return { w, project, maintainer, developer, reporter, token };
}

describe("GET/POST/DELETE /projects/:id/terraform/state/:name", () => {
  it("stores every version, reads the latest, and deletes the state", async () => {
    const { project, maintainer, developer, token } = await setup();
    const m = { user: "anyone", password: await token(maintainer) };
    const d = { user: "dev", password: await token(developer) };
    const base = `/projects/${project.id}/terraform/state/prod%2Fnet`;
    expect(await statusAndBody(await tf("GET", base, m))).toEqual([404, { message: "404 Not found" }]);
    expect((await tf("POST", base, m, stateOf(1))).status).toBe(200);
    expect((await tf("POST", base, m, stateOf(2, { outputs: { a: 1 } }))).status).toBe(200);
    const latest = await tf("GET", base, d);
    expect(latest.status).toBe(200);
    expect(await latest.json()).toEqual(stateOf(2, { outputs: { a: 1 } }));
    expect(await (await tf("GET", `${base}/versions/1`, d)).json()).toEqual(stateOf(1));
    expect(await statusAndBody(await tf("GET", `${base}/versions/9`, d))).toEqual([404, { message: "404 Version Not Found" }]);
    expect(await statusAndBody(await tf("GET", `${base}/versions/x`, d))).toEqual([400, { error: "serial is invalid" }]);
    expect((await tf("POST", base, m, "")).status).toBe(204);
    expect((await tf("DELETE", base, m)).status).toBe(200);
    expect((await tf("GET", base, m)).status).toBe(404);
  });

  it("lets developers read and only maintainers write; strangers get 404, anonymous callers 401", async () => {
    const { w, project, developer, reporter, token } = await setup();
    const base = `/projects/${project.id}/terraform/state/s`;
    const d = { user: "dev", password: await token(developer) };
    expect(await statusAndBody(await tf("POST", base, d, stateOf(1)))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await tf("POST", `${base}/lock`, d, lockInfo("x")))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await tf("GET", base, { user: "r", password: await token(reporter) }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await tf("GET", base, { user: "s", password: await token(w.stranger) }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await tf("GET", base, null)).status).toBe(401);
    expect((await tf("GET", base, { user: "x", password: "glpat-nope" })).status).toBe(401);
  });
});

describe("POST/DELETE /projects/:id/terraform/state/:name/lock", () => {
  it("locks, refuses a second locker with the holder's info (409), writes only with the lock's ID, unlocks", async () => {
    const { w, project, maintainer, token } = await setup();
    const other = await w.user();
    await w.root.post(`/projects/${project.id}/members`, { json: { user_id: other.id, access_level: 40 } });
    const m = { user: "m", password: await token(maintainer) };
    const o = { user: "o", password: await token(other) };
    const base = `/projects/${project.id}/terraform/state/app`;
    const locked = await tf("POST", `${base}/lock`, m, lockInfo("lock-1"));
    expect(locked.status).toBe(200);
    const info = (await locked.json()) as Record<string, unknown>;
    expect(info).toMatchObject({ ID: "lock-1", Operation: "OperationTypeApply", Version: "1.5.7" });
    expect(info.Who).toEqual(expect.any(String));
    // Before any version is written the state exists, empty.
    expect((await tf("GET", base, m)).status).toBe(204);
    const held = await tf("POST", `${base}/lock`, o, lockInfo("lock-2"));
    expect(held.status).toBe(409);
    expect(await held.json()).toMatchObject({ ID: "lock-1", Who: info.Who, Created: info.Created });
    expect((await tf("POST", `${base}?ID=lock-2`, o, stateOf(1))).status).toBe(409);
    expect((await tf("POST", base, o, stateOf(1))).status).toBe(409);
    expect((await tf("POST", `${base}?ID=lock-1`, m, stateOf(1))).status).toBe(200);
    expect((await tf("DELETE", `${base}/lock`, o, { ID: "lock-2" })).status).toBe(409);
    expect((await tf("DELETE", `${base}/lock`, m, lockInfo("lock-1"))).status).toBe(200);
    expect((await tf("POST", base, o, stateOf(2))).status).toBe(200);
    expect(await statusAndBody(await tf("POST", `${base}/lock`, m, { ID: "x" }))).toEqual([400, { error: "Operation is missing, Info is missing, Who is missing, Version is missing, Created is missing, Path is missing" }]);
    expect(await statusAndBody(await tf("DELETE", `/projects/${project.id}/terraform/state/none/lock`, m, { ID: "x" }))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("CI job tokens", () => {
  it("write their own project's state with gitlab-ci-token Basic credentials", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "plan:\n  script: [terraform apply]\n");
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const job = await claim(runner.token);
    const auth = { user: "gitlab-ci-token", password: job.token };
    const base = `/projects/${project.id}/terraform/state/ci`;
    expect((await tf("POST", base, auth, stateOf(1))).status).toBe(200);
    expect(await (await tf("GET", base, auth)).json()).toEqual(stateOf(1));
    const other = await w.project({ owner: await w.user() });
    expect((await tf("GET", `/projects/${other.id}/terraform/state/ci`, auth)).status).toBe(404);
    expect((await request("GET", base, null)).status).toBe(401);
  });
});
