import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { updateMirror } from "../../functions/shared/remote_mirrors";
import { statusAndBody } from "../helpers/client";
import { withDb } from "../helpers/db";
import { smallRepo } from "../helpers/git";
import { world, type TestProject, type World } from "../helpers/world";

type Mirror = Record<string, unknown> & { id: number };

const base = (project: TestProject) => `/projects/${project.id}/remote_mirrors`;

async function mirrorOf(w: World, project: TestProject, body: Record<string, unknown>): Promise<Mirror> {
  const res = await w.root.post(base(project), { json: body });
  expect(res.status).toBe(201);
  return (await res.json()) as Mirror;
}

async function row(w: World, id: number) {
  return (await w.db((db) => db.execute(sql`SELECT url, credentials, update_status, last_error, last_update_at, last_successful_update_at FROM remote_mirrors WHERE id = ${id}`))).rows[0] as Record<string, unknown>;
}

describe("POST /projects/:id/remote_mirrors", () => {
  it("creates a disabled mirror and shows its URL with the credentials masked", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const res = await w.as(owner).post(base(project), { json: { url: "https://bob:s3cret@example.com/group/mirror.git" } });
    expect(await statusAndBody(res)).toEqual([
      201,
      {
        id: expect.any(Number),
        enabled: false,
        url: "https://*****:*****@example.com/group/mirror.git",
        update_status: "none",
        last_update_at: null,
        last_update_started_at: null,
        last_successful_update_at: null,
        last_error: null,
        only_protected_branches: false,
        keep_divergent_refs: false,
      },
    ]);
    const id = ((await w.as(owner).get(base(project)).then((r) => r.json())) as Mirror[])[0].id;
    const stored = await row(w, id);
    // The credentials are kept beside the URL and never returned.
    expect(stored.url).toBe("https://example.com/group/mirror.git");
    expect(stored.credentials).toEqual({ user: "bob", password: "s3cret" });
  });

  it("shows a `git` user, masks a lone user, and keeps the flags sent", async () => {
    const w = await world();
    const project = await w.project();
    const git = await mirrorOf(w, project, { url: "https://git:tok@example.com/a.git", only_protected_branches: true, keep_divergent_refs: true });
    expect(git).toMatchObject({ url: "https://git:*****@example.com/a.git", only_protected_branches: true, keep_divergent_refs: true });
    const user = await mirrorOf(w, project, { url: "https://alice@example.com/b.git" });
    expect(user.url).toBe("https://*****@example.com/b.git");
    const plain = await mirrorOf(w, project, { url: "https://example.com/c.git" });
    expect(plain.url).toBe("https://example.com/c.git");
  });

  it("answers Grape's 400 for a missing or mistyped parameter and the model's for a bad URL", async () => {
    const w = await world();
    const project = await w.project();
    expect(await statusAndBody(await w.root.post(base(project), { json: {} }))).toEqual([400, { error: "url is missing" }]);
    expect(await statusAndBody(await w.root.post(base(project), { json: { url: "https://example.com/a.git", enabled: "maybe" } }))).toEqual([400, { error: "enabled is invalid" }]);
    expect(await statusAndBody(await w.root.post(base(project), { json: { url: "" } }))).toEqual([400, { message: { url: ["can't be blank"] } }]);
    expect(await statusAndBody(await w.root.post(base(project), { json: { url: "ssh://git@example.com/a.git" } }))).toEqual([
      400,
      { message: { url: ["is blocked: Only allowed schemes are http, https"] } },
    ]);
    expect(await statusAndBody(await w.root.post(base(project), { json: { url: "https://-x:y@example.com/a.git" } }))).toEqual([
      400,
      { message: { url: ["is blocked: Username needs to start with an alphanumeric character"] } },
    ]);
  });

  it("refuses local addresses while `allow_local_requests_from_web_hooks_and_services` is off (the default)", async () => {
    const w = await world();
    const project = await w.project();
    for (const [url, reason] of [
      ["http://10.1.2.3/a.git", "Requests to the local network are not allowed"],
      ["http://localhost:8080/a.git", "Requests to localhost are not allowed"],
      ["http://0x7f.1/a.git", "Requests to localhost are not allowed"],
      ["http://169.254.169.254/a.git", "Requests to the link local network are not allowed"],
    ]) {
      expect(await statusAndBody(await w.root.post(base(project), { json: { url } }))).toEqual([400, { message: { url: [`is blocked: ${reason}`] } }]);
    }
  });

  it("is for maintainers: others who can read the project get 401, the rest 404", async () => {
    const w = await world();
    const [developer, maintainer, stranger] = [await w.user(), await w.user(), await w.user()];
    const project = await w.project({ visibility: "public", developers: [developer], maintainers: [maintainer] });
    const priv = await w.project({ visibility: "private" });
    const json = { url: "https://example.com/a.git" };
    expect(await statusAndBody(await w.as(developer).post(base(project), { json }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(stranger).get(base(project)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.anonymous.get(base(project)))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(stranger).get(base(priv)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(base(priv)))).toEqual([404, { message: "404 Project Not Found" }]);
    // Anonymous writes stop at the API's `authenticate_non_get!`.
    expect(await statusAndBody(await w.anonymous.post(base(priv), { json }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await w.as(maintainer).post(base(project), { json })).status).toBe(201);
  });
});

describe("GET /projects/:id/remote_mirrors", () => {
  it("lists the project's mirrors by id, paginated", async () => {
    const w = await world();
    const project = await w.project();
    const other = await w.project();
    const a = await mirrorOf(w, project, { url: "https://example.com/a.git" });
    const b = await mirrorOf(w, project, { url: "https://example.com/b.git" });
    await mirrorOf(w, other, { url: "https://example.com/c.git" });
    const all = await w.root.get(base(project));
    expect(((await all.json()) as Mirror[]).map((m) => m.id)).toEqual([a.id, b.id]);
    const page = await w.root.get(`${base(project)}?per_page=1&page=2`);
    expect(page.headers.get("x-total")).toBe("2");
    expect(((await page.json()) as Mirror[]).map((m) => m.id)).toEqual([b.id]);
  });
});

describe("GET /projects/:id/remote_mirrors/:mirror_id", () => {
  it("shows one mirror of the project; another project's, or a bad id, is 404", async () => {
    const w = await world();
    const project = await w.project();
    const other = await w.project();
    const mirror = await mirrorOf(w, project, { url: "https://u:p@example.com/a.git" });
    expect(await statusAndBody(await w.root.get(`${base(project)}/${mirror.id}`))).toEqual([200, mirror]);
    expect(await statusAndBody(await w.root.get(`${base(other)}/${mirror.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.root.get(`${base(project)}/abc`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("PUT /projects/:id/remote_mirrors/:mirror_id", () => {
  it("changes the flags and nothing else", async () => {
    const w = await world();
    const project = await w.project();
    const mirror = await mirrorOf(w, project, { url: "https://u:p@example.com/a.git" });
    const res = await w.root.put(`${base(project)}/${mirror.id}`, { json: { only_protected_branches: true, keep_divergent_refs: true, url: "https://evil.example/" } });
    expect(await statusAndBody(res)).toEqual([200, { ...mirror, only_protected_branches: true, keep_divergent_refs: true }]);
    expect(await statusAndBody(await w.root.put(`${base(project)}/${mirror.id}`, { json: { enabled: "x" } }))).toEqual([400, { error: "enabled is invalid" }]);
    expect(await statusAndBody(await w.root.put(`${base(project)}/2147483647`, { json: { enabled: false } }))).toEqual([404, { message: "404 Not found" }]);
    // Parameters are validated before the mirror is looked up, as Grape does.
    expect(await statusAndBody(await w.root.put(`${base(project)}/2147483647`, { json: { enabled: "x" } }))).toEqual([400, { error: "enabled is invalid" }]);
  });
});

describe("DELETE /projects/:id/remote_mirrors/:mirror_id", () => {
  it("deletes the mirror (204), then it is gone", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    const mirror = await mirrorOf(w, project, { url: "https://example.com/a.git" });
    expect((await w.as(developer).delete(`${base(project)}/${mirror.id}`)).status).toBe(401);
    expect((await w.root.delete(`${base(project)}/${mirror.id}`)).status).toBe(204);
    expect((await w.root.get(`${base(project)}/${mirror.id}`)).status).toBe(404);
  });
});

describe("POST /projects/:id/remote_mirrors/:mirror_id/sync", () => {
  it("refuses a disabled mirror with 400 and queues an enabled one (204)", async () => {
    const w = await world();
    const project = await w.project();
    const off = await mirrorOf(w, project, { url: "https://example.com/a.git" });
    expect(await statusAndBody(await w.root.post(`${base(project)}/${off.id}/sync`))).toEqual([400, { message: "Mirror is not enabled" }]);
    // The project's repository is empty: the queued update does nothing (RemoteMirror#enabled is false).
    const on = await mirrorOf(w, project, { url: "https://example.com/b.git", enabled: true });
    const res = await w.root.post(`${base(project)}/${on.id}/sync`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await statusAndBody(await w.root.post(`${base(project)}/2147483647/sync`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("the mirror update (queue consumer)", () => {
  it("fails at once, without a request, when the outbound rules refuse the URL now", async () => {
    const w = await world();
    const { project } = await smallRepo(w);
    // Saved while allowed, refused at update time: the rule is checked again before any request.
    const id = Number(
      (
        await w.db((db) =>
          db.execute(sql`INSERT INTO remote_mirrors (project_id, url, credentials, enabled) VALUES (${project.id}, 'http://169.254.169.254/a.git', '{"password":"pw"}', true) RETURNING id`),
        )
      ).rows[0].id,
    );
    const outcome = await withDb((db) => updateMirror(db, id, 1));
    expect(outcome).toEqual({ status: "failed", error: "The remote mirror URL is invalid." });
    const stored = await row(w, id);
    expect(stored).toMatchObject({ update_status: "failed", last_error: "The remote mirror URL is invalid.", last_successful_update_at: null });
    expect(stored.last_update_at).not.toBeNull();
  });

  it("does not start a second update while one runs (less than an hour old), and takes over a stale one", async () => {
    const w = await world();
    const { project } = await smallRepo(w);
    const insert = (startedAgo: string) =>
      w.db((db) =>
        db.execute(sql`INSERT INTO remote_mirrors (project_id, url, enabled, update_status, last_update_started_at)
          VALUES (${project.id}, 'http://169.254.169.254/a.git', true, 'started', now() - ${startedAgo}::interval) RETURNING id`),
      );
    const running = Number((await insert("5 minutes")).rows[0].id);
    expect(await withDb((db) => updateMirror(db, running, 1))).toEqual({ status: "busy" });
    expect((await row(w, running)).update_status).toBe("started");
    const stale = Number((await insert("2 hours")).rows[0].id);
    expect((await withDb((db) => updateMirror(db, stale, 1))).status).toBe("failed");
  });

  it("leaves disabled mirrors and empty repositories alone, and acknowledges their messages", async () => {
    const w = await world();
    const project = await w.project();
    const mirror = await mirrorOf(w, project, { url: "https://example.com/a.git", enabled: true });
    const batch = createMessageBatch("edgeforge-mirrors", [{ id: `m-${mirror.id}`, timestamp: new Date(), attempts: 1, body: { kind: "mirror", mirrorId: mirror.id } }]);
    const ctx = createExecutionContext();
    await queue(batch, env as unknown as Bindings, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([`m-${mirror.id}`]);
    expect(result.retryMessages).toEqual([]);
    expect((await row(w, mirror.id)).update_status).toBe("none");
  });
});
