import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { scheduleCleanupPolicies } from "../../functions/container_registry/consumer";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { statusAndBody } from "../helpers/client";
import { rows } from "../helpers/db";
import { world } from "../helpers/world";
import { basic, pushImage, registryToken } from "./support";

type Json = Record<string, any>;

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const dev = await w.user();
  const group = await w.group();
  const project = await w.project({ group, maintainers: [maintainer], developers: [dev] });
  return { w, maintainer, dev, project, image: project.fullPath.toLowerCase() };
}

const policyOf = async (w: Awaited<ReturnType<typeof world>>, projectId: number) =>
  (rows<Json>(w, sql`SELECT enabled, cadence, keep_n, older_than, name_regex, name_regex_keep, next_run_at FROM container_expiration_policies WHERE project_id = ${projectId}`).then((r) => r[0]));

describe("PUT /projects/:id (container_expiration_policy_attributes)", () => {
  it("shows GitLab's default policy on a new project and saves the attributes sent", async () => {
    const { w, maintainer, project } = await setup();
    const shown = (await (await w.as(maintainer).get(`/projects/${project.id}`)).json()) as Json;
    expect(shown.container_expiration_policy).toMatchObject({ cadence: "1d", enabled: false, keep_n: 10, older_than: "90d", name_regex: ".*", name_regex_keep: null });
    expect(Date.parse(shown.container_expiration_policy.next_run_at)).toBeGreaterThan(Date.now());
    const res = await w.as(maintainer).put(`/projects/${project.id}`, {
      json: { container_expiration_policy_attributes: { enabled: true, cadence: "7d", keep_n: 5, older_than: "14d", name_regex_delete: "v.*", name_regex_keep: "stable" } },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.container_expiration_policy).toMatchObject({ cadence: "7d", enabled: true, keep_n: 5, older_than: "14d", name_regex: "v.*", name_regex_keep: "stable" });
    // Saving moves next_run_at to now + cadence (Schedulable).
    const next = Date.parse(body.container_expiration_policy.next_run_at);
    expect(next).toBeGreaterThan(Date.now() + 6 * 864e5);
    expect(next).toBeLessThanOrEqual(Date.now() + 7 * 864e5);
    // Attributes not sent keep their values; nulls clear.
    const again = (await (await w.as(maintainer).put(`/projects/${project.id}`, { json: { container_expiration_policy_attributes: { keep_n: null, older_than: null } } })).json()) as Json;
    expect(again.container_expiration_policy).toMatchObject({ cadence: "7d", enabled: true, keep_n: null, older_than: null, name_regex: "v.*" });
    // Form-encoded (Rack's nested keys), as curl sends it.
    const form = await w.as(maintainer).put(`/projects/${project.id}`, { form: { "container_expiration_policy_attributes[enabled]": "false" } });
    expect(((await form.json()) as Json).container_expiration_policy.enabled).toBe(false);
    expect(await policyOf(w, project.id)).toMatchObject({ enabled: false, cadence: "7d", keep_n: null });
    // Lists show it too.
    const listed = (await (await w.as(maintainer).get(`/groups/${project.namespaceId}/projects`)).json()) as Json[];
    expect(listed.find((p) => p.id === project.id)?.container_expiration_policy).toMatchObject({ cadence: "7d" });
  });

  it("refuses values outside GitLab's options and bad regexes (400, nothing saved)", async () => {
    const { w, maintainer, project } = await setup();
    const put = (attrs: Json, extra: Json = {}) => w.as(maintainer).put(`/projects/${project.id}`, { json: { ...extra, container_expiration_policy_attributes: attrs } });
    expect(await statusAndBody(await put({ cadence: "2d" }, { description: "changed" }))).toEqual([400, { message: { "container_expiration_policy.cadence": ["is not included in the list"] } }]);
    expect(await statusAndBody(await put({ keep_n: 3, older_than: "1d" }))).toEqual([
      400,
      { message: { "container_expiration_policy.older_than": ["is not included in the list"], "container_expiration_policy.keep_n": ["is not included in the list"] } },
    ]);
    expect(await statusAndBody(await put({ name_regex: "a".repeat(256) }))).toEqual([400, { message: { "container_expiration_policy.name_regex": ["is too long (maximum is 255 characters)"] } }]);
    expect(await statusAndBody(await put({ keep_n: "many" }))).toEqual([400, { error: "container_expiration_policy_attributes[keep_n] is invalid" }]);
    const [status, body] = await statusAndBody(await put({ enabled: true, name_regex: "(v+)+x" }));
    expect(status).toBe(400);
    expect(Object.keys((body as Json).message)).toEqual(["container_expiration_policy.name_regex"]);
    expect(await statusAndBody(await put({ enabled: true, name_regex_keep: "(" }))).toEqual([
      400,
      { message: { "container_expiration_policy.name_regex_keep": [expect.stringMatching(/^not valid RE2 syntax: /)] } },
    ]);
    // A disabled policy keeps any regex, as GitLab validates them only when enabled.
    expect((await put({ name_regex: "(" })).status).toBe(200);
    const project2 = (await (await w.as(maintainer).get(`/projects/${project.id}`)).json()) as Json;
    expect(project2.description).not.toBe("changed");
    expect(project2.container_expiration_policy).toMatchObject({ cadence: "1d", keep_n: 10, name_regex: "(", enabled: false });
  });

  it("is for maintainers: developers 403, strangers 404", async () => {
    const { w, dev, project } = await setup();
    const stranger = await w.user();
    const attrs = { container_expiration_policy_attributes: { enabled: true } };
    expect(await statusAndBody(await w.as(dev).put(`/projects/${project.id}`, { json: attrs }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(stranger).put(`/projects/${project.id}`, { json: attrs }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await policyOf(w, project.id)).enabled).toBe(false);
  });
});

describe("cleanup policies (cron and the edgeforge-registry queue)", () => {
  it("claims a due policy once, and its run deletes as CleanupTagsService: never latest, keep_n newest, older_than, keep regex", async () => {
    const { w, maintainer, dev, project, image } = await setup();
    const token = await registryToken(basic(dev.token), `repository:${image}:pull,push`, `repository:${image}/tools:pull,push`);
    for (const tag of ["v1", "v2", "v3", "v4", "stable", "latest"]) await pushImage(image, token, tag, `layer ${tag}`);
    await pushImage(`${image}/tools`, token, "v1", "tools");
    // Ages: every tag 40 days old (v1 41) except v4 (today).
    // A tag's age is its manifest's (docs/container_registry.md).
    const age = (days: number, where: ReturnType<typeof sql>) =>
      rows(w, sql`UPDATE container_manifests m SET created_at = now() - make_interval(days => ${days}::int) FROM container_tags t, container_repositories r
        WHERE t.manifest_id = m.id AND r.id = t.repository_id AND r.project_id = ${project.id} AND ${where}`);
    await age(40, sql`NOT (r.name = '' AND t.name = 'v4')`);
    await age(41, sql`r.name = '' AND t.name = 'v1'`);
    const saved = await w.as(maintainer).put(`/projects/${project.id}`, {
      json: { container_expiration_policy_attributes: { enabled: true, cadence: "1d", keep_n: 1, older_than: "30d", name_regex: ".*", name_regex_keep: "stable" } },
    });
    expect(saved.status).toBe(200);
    const due = new Date(((await saved.json()) as Json).container_expiration_policy.next_run_at);
    // Not due yet: not claimed.
    expect(await scheduleCleanupPolicies(env as unknown as Bindings, new Date(due.getTime() - 1000))).not.toContain(project.id);
    expect(await scheduleCleanupPolicies(env as unknown as Bindings, due)).toContain(project.id);
    // Claimed: next_run_at moved one cadence on, so a second cron at the same time takes nothing.
    expect(await scheduleCleanupPolicies(env as unknown as Bindings, due)).not.toContain(project.id);
    expect(new Date((await policyOf(w, project.id)).next_run_at).getTime()).toBe(due.getTime() + 864e5);
    // The consumer runs the policy (what the queue delivers).
    const batch = createMessageBatch("edgeforge-registry", [{ id: `cleanup-${project.id}`, timestamp: new Date(), attempts: 1, body: { kind: "cleanup_policy", projectId: project.id } }]);
    const ctx = createExecutionContext();
    await queue(batch, env as unknown as Bindings, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`cleanup-${project.id}`]);
    const repos = (await (await w.as(maintainer).get(`/projects/${project.id}/registry/repositories`, { query: { tags: true } })).json()) as Json[];
    const names = (name: string) => repos.find((r) => r.name === name)!.tags.map((t: Json) => t.name);
    // v4 is the newest (keep_n 1) and young; v2 and v3 are the next newest but old: deleted; v1 too.
    expect(names("")).toEqual(["latest", "stable", "v4"]);
    // tools:v1 is the newest of its repository: kept by keep_n.
    expect(names("tools")).toEqual(["v1"]);
  });

  it("does nothing for a disabled policy or a project whose registry is off", async () => {
    const { w, maintainer, dev, project, image } = await setup();
    const token = await registryToken(basic(dev.token), `repository:${image}:pull,push`);
    await pushImage(image, token, "v1", "one");
    await pushImage(image, token, "v2", "two");
    await w.as(maintainer).put(`/projects/${project.id}`, { json: { container_expiration_policy_attributes: { enabled: true, keep_n: 1, older_than: null } } });
    await w.as(maintainer).put(`/projects/${project.id}`, { json: { container_registry_access_level: "disabled" } });
    const batch = createMessageBatch("edgeforge-registry", [{ id: `off-${project.id}`, timestamp: new Date(), attempts: 1, body: { kind: "cleanup_policy", projectId: project.id } }]);
    const ctx = createExecutionContext();
    await queue(batch, env as unknown as Bindings, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
    const tags = await rows(w, sql`SELECT t.name FROM container_tags t JOIN container_repositories r ON r.id = t.repository_id WHERE r.project_id = ${project.id} ORDER BY t.name`);
    expect(tags.map((t) => t.name)).toEqual(["v1", "v2"]);
  });
});
