import { beforeAll, describe, expect, it } from "vitest";
import { request, statusAndBody, type Client } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";
import { ciProject, claim, projectRunner } from "../helpers/ci";

type Json = Record<string, any>;

const YAML = `
always:
  script: [echo always]
deploy:
  script: [echo deploy]
  rules:
    - if: '$CI_PIPELINE_SOURCE == "trigger" && $DEPLOY_TO == "prod"'
never_from_trigger:
  script: [echo push]
  rules:
    - if: '$CI_PIPELINE_SOURCE != "trigger"'
`;

let w: World;
let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let project: TestProject;
let api: Client;
let url: string;

async function addMaintainer(client: Client, projectId: number, user: TestUser) {
  const res = await client.post(`/projects/${projectId}/members`, { json: { user_id: user.id, access_level: 40 } });
  expect(res.status).toBe(201);
}

async function newTrigger(client: Client, projectId: number, description = "deploy hook"): Promise<Json> {
  const res = await client.post(`/projects/${projectId}/triggers`, { json: { description } });
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

beforeAll(async () => {
  w = await world();
  maintainer = await w.user();
  developer = await w.user();
  ({ owner, project, api } = await ciProject(w, YAML, { developers: [developer], visibility: "private" }));
  await addMaintainer(api, project.id, maintainer);
  url = `/projects/${project.id}/triggers`;
});

describe("POST /projects/:id/triggers", () => {
  it("creates a token owned by the caller, shown in full to them only", async () => {
    const body = await newTrigger(w.as(maintainer), project.id, "from maintainer");
    expect(body).toMatchObject({ description: "from maintainer", last_used: null, owner: { id: maintainer.id, username: maintainer.username } });
    expect(body.token).toMatch(/^glptt-[0-9a-f]{40}$/);
    expect(Object.keys(body).sort()).toEqual(["created_at", "description", "id", "last_used", "owner", "token", "updated_at"]);
    const seen = (await (await api.get(`${url}/${body.id}`)).json()) as Json;
    expect(seen.token).toBe(body.token.slice(6, 10));
  });

  it("answers GitLab's 400 and is for maintainers", async () => {
    expect(await statusAndBody(await api.post(url, { json: {} }))).toEqual([400, { error: "description is missing" }]);
    expect(await statusAndBody(await w.as(developer).post(url, { json: { description: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(url, { json: { description: "x" } }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.post(url, { json: { description: "x" } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /projects/:id/triggers", () => {
  it("lists the project's tokens, paginated, for maintainers", async () => {
    const w2 = await world();
    const { project: p2, api: ownerApi } = await ciProject(w2, YAML);
    const a = await newTrigger(ownerApi, p2.id, "a");
    const b = await newTrigger(ownerApi, p2.id, "b");
    const res = await ownerApi.get(`/projects/${p2.id}/triggers`, { query: { per_page: 1, page: 2 } });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBe("2");
    expect(((await res.json()) as Json[]).map((t) => [t.id, t.description, t.token])).toEqual([[b.id, "b", b.token]]);
    expect(((await (await ownerApi.get(`/projects/${p2.id}/triggers`)).json()) as Json[]).map((t) => t.id)).toEqual([a.id, b.id]);
    expect((await w.as(developer).get(url)).status).toBe(403);
    expect(await statusAndBody(await w.anonymous.get(url))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /projects/:id/triggers/:trigger_id", () => {
  it("finds one trigger of the project", async () => {
    const t = await newTrigger(api, project.id);
    expect(((await (await api.get(`${url}/${t.id}`)).json()) as Json).token).toBe(t.token);
    expect(await statusAndBody(await api.get(`${url}/999999999`))).toEqual([404, { message: "404 Trigger Not Found" }]);
    expect(await statusAndBody(await api.get(`${url}/abc`))).toEqual([400, { error: "trigger_id is invalid" }]);
    expect((await w.as(developer).get(`${url}/${t.id}`)).status).toBe(403);
  });
});

describe("PUT /projects/:id/triggers/:trigger_id", () => {
  it("lets the owner change the description; other maintainers get 403", async () => {
    const t = await newTrigger(api, project.id, "old");
    expect(await statusAndBody(await w.as(maintainer).put(`${url}/${t.id}`, { json: { description: "theirs" } }))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await api.put(`${url}/${t.id}`, { json: { description: "new" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: t.id, description: "new", token: t.token });
    expect(await statusAndBody(await api.put(`${url}/999999999`, { json: { description: "x" } }))).toEqual([404, { message: "404 Trigger Not Found" }]);
  });
});

describe("DELETE /projects/:id/triggers/:trigger_id", () => {
  it("deletes (maintainers), after which the token no longer runs pipelines", async () => {
    const t = await newTrigger(api, project.id);
    expect((await w.as(developer).delete(`${url}/${t.id}`)).status).toBe(403);
    expect((await w.as(maintainer).delete(`${url}/${t.id}`)).status).toBe(204);
    expect((await api.get(`${url}/${t.id}`)).status).toBe(404);
    expect(await statusAndBody(await request("POST", `/projects/${project.id}/trigger/pipeline`, null, { json: { token: t.token, ref: "main" } }))).toEqual([404, { message: "404 Not Found" }]);
  });
});

describe("POST /projects/:id/trigger/pipeline", () => {
  it("creates a trigger pipeline as the token's owner; its variables reach rules:if and the jobs", async () => {
    const t = await newTrigger(api, project.id);
    // Anonymous (the token is the credential), private project, JSON variables.
    const res = await request("POST", `/projects/${project.id}/trigger/pipeline`, null, { json: { token: t.token, ref: "main", variables: { DEPLOY_TO: "prod" } } });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ project_id: project.id, ref: "main", source: "trigger", status: "pending", user: { id: owner.id } });
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${body.id}/jobs`)).json()) as Json[];
    expect(jobs.map((j) => j.name).sort()).toEqual(["always", "deploy"]);
    expect(await (await api.get(`/projects/${project.id}/pipelines/${body.id}/variables`)).json()).toEqual([{ variable_type: "env_var", key: "DEPLOY_TO", value: "prod" }]);
    const runner = await projectRunner(api, project.id);
    const job = await claim(runner.token);
    const vars = Object.fromEntries(job.variables.map((v) => [v.key, v.value]));
    expect(vars).toMatchObject({ DEPLOY_TO: "prod", CI_PIPELINE_SOURCE: "trigger", CI_PIPELINE_TRIGGERED: "true", GITLAB_USER_ID: String(owner.id) });
    expect(((await (await api.get(`${url}/${t.id}`)).json()) as Json).last_used).not.toBeNull();
  });

  it("takes form parameters (variables[KEY]=value) and the webhook form with ?token=", async () => {
    const t = await newTrigger(api, project.id);
    const form = await request("POST", `/projects/${project.id}/trigger/pipeline`, null, { formBody: `token=${t.token}&ref=main&variables[DEPLOY_TO]=staging` });
    const formBody = (await form.json()) as Json;
    expect(form.status).toBe(201);
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${formBody.id}/jobs`)).json()) as Json[];
    expect(jobs.map((j) => j.name)).toEqual(["always"]);
    expect(await (await api.get(`/projects/${project.id}/pipelines/${formBody.id}/variables`)).json()).toEqual([{ variable_type: "env_var", key: "DEPLOY_TO", value: "staging" }]);
    // Path form, with the project's full path and a ref holding a slash.
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "feature/x", ref: "main" } });
    const hook = await request("POST", `/projects/${encodeURIComponent(project.fullPath)}/ref/feature/x/trigger/pipeline`, null, { query: { token: t.token } });
    const hookBody = (await hook.json()) as Json;
    expect(hook.status, JSON.stringify(hookBody)).toBe(201);
    expect(hookBody).toMatchObject({ ref: "feature/x", source: "trigger" });
  });

  it("answers GitLab's 400 and 404 bodies", async () => {
    const t = await newTrigger(api, project.id);
    const post = (json: unknown, path = `/projects/${project.id}/trigger/pipeline`) => request("POST", path, null, { json });
    expect(await statusAndBody(await post({ ref: "main" }))).toEqual([400, { error: "token is missing" }]);
    expect(await statusAndBody(await post({ token: t.token, ref: "" }))).toEqual([400, { error: "ref is empty" }]);
    expect(await statusAndBody(await post({ token: t.token, ref: "main", variables: { A: 1 } }))).toEqual([400, { message: "variables needs to be a map of key-valued strings" }]);
    expect(await statusAndBody(await post({ token: t.token, ref: "nope" }))).toEqual([400, { message: { base: ["Reference not found"] } }]);
    expect(await statusAndBody(await post({ token: "glptt-wrong", ref: "main" }))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await post({ token: t.token, ref: "main" }, `/projects/999999999/trigger/pipeline`))).toEqual([404, { message: "404 Not Found" }]);
    // Another project's token does not run this project's pipelines.
    const other = await ciProject(w, YAML);
    expect(await statusAndBody(await post({ token: t.token, ref: "main" }, `/projects/${other.project.id}/trigger/pipeline`))).toEqual([404, { message: "404 Not Found" }]);
    expect((await request("POST", `/projects/${project.id}/trigger/pipeline`, null, { json: { token: t.token, ref: "main" }, headers: { "X-Gitlab-Event": "Pipeline Hook" } })).status).toBe(403);
  });

  it("stores a configuration error as a failed pipeline and refuses owners who lost access", async () => {
    const w3 = await world();
    const m = await w3.user();
    const { project: p3, api: ownerApi } = await ciProject(w3, "job:\n  stage: nope\n  script: x\n");
    await addMaintainer(ownerApi, p3.id, m);
    const t = await newTrigger(w3.as(m), p3.id);
    const res = await request("POST", `/projects/${p3.id}/trigger/pipeline`, null, { json: { token: t.token, ref: "main" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ status: "failed", source: "trigger", yaml_errors: expect.stringContaining("chosen stage does not exist") });
    expect((await ownerApi.delete(`/projects/${p3.id}/members/${m.id}`)).status).toBe(204);
    expect(await statusAndBody(await request("POST", `/projects/${p3.id}/trigger/pipeline`, null, { json: { token: t.token, ref: "main" } }))).toEqual([
      400,
      { message: { base: ["Insufficient permissions to create a new pipeline"] } },
    ]);
  });
});
