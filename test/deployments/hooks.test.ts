import { afterAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { ciProject, claim, createPipeline, finish, projectRunner } from "../helpers/ci";
import { allowLocalHooks, received, RECEIVER, waitFor, type Received } from "../helpers/hooks";
import { unique, world, type World } from "../helpers/world";

// Deployment Hook deliveries reach the local receiver (test/helpers/hooks.ts).

afterAll(async () => allowLocalHooks(await world(), false));


const payloads = (list: Received[]) => list.map((d) => JSON.parse(d.body) as Record<string, unknown>);

const YAML = `
stages: [test, deploy]
unit:
  stage: test
  script: [echo unit]
deploy:
  stage: deploy
  script: [echo deploy]
  environment:
    name: production
    url: https://prod.example.com
`;

describe("Deployment Hook: a CI job's deployment", () => {
  it("sends running and success as the job moves (a job without environment sends nothing); GitLab's payload", async () => {
    const w = await world();
    const { owner, project, api, sha } = await ciProject(w, YAML);
    const path = `/${unique("deploy")}`;
    const silent = `/${unique("nodeploy")}`;
    await allowLocalHooks(w, true);
    const hook = await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, token: "dep-token", push_events: false, deployment_events: true } });
    expect(hook.status).toBe(201);
    // A hook without deployment_events hears the jobs but no deployment.
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${silent}`, push_events: false, job_events: true } })).status).toBe(201);
    const runner = await projectRunner(api, project.id);
    const pipeline = await createPipeline(api, project.id);

    const unit = await claim(runner.token);
    expect(unit.job_info.name).toBe("unit");
    expect((await finish(unit, "success")).status).toBe(200);
    const deploy = await claim(runner.token);
    expect(deploy.job_info.name).toBe("deploy");
    // The unit job's moves were reported before this one: the first delivery is the deploy job's running.
    const [first] = await waitFor(path, 1);
    expect(first.headers).toMatchObject({ "x-gitlab-event": "Deployment Hook", "x-gitlab-token": "dep-token", "content-type": "application/json" });
    expect(JSON.parse(first.body)).toMatchObject({ object_kind: "deployment", status: "running", deployable_id: deploy.id });
    expect((await finish(deploy, "success")).status).toBe(200);
    const list = await waitFor(path, 2);
    expect(list.map((d) => d.headers["x-gitlab-event"])).toEqual(["Deployment Hook", "Deployment Hook"]);
    const [running, success] = payloads(list);
    expect(success.deployment_id).toBe(running.deployment_id);
    const deployments = (await (await api.get(`/projects/${project.id}/deployments`)).json()) as { id: number; status: string }[];
    expect(deployments).toMatchObject([{ id: running.deployment_id, status: "success" }]);

    const base = new URL(String((success.project as { web_url: string }).web_url)).origin;
    expect(success).toEqual({
      object_kind: "deployment",
      status: "success",
      status_changed_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000$/),
      deployment_id: running.deployment_id,
      deployable_id: deploy.id,
      deployable_url: `${base}/${project.fullPath}/-/jobs/${deploy.id}`,
      environment: "production",
      environment_tier: "production",
      environment_slug: "production",
      environment_external_url: "https://prod.example.com",
      project: expect.objectContaining({ id: project.id, path_with_namespace: project.fullPath, web_url: `${base}/${project.fullPath}` }),
      short_sha: sha.slice(0, 8),
      user: expect.objectContaining({ id: owner.id, username: owner.username, name: owner.name }),
      user_url: `${base}/${owner.username}`,
      commit_url: `${base}/${project.fullPath}/-/commit/${sha}`,
      commit_title: "Add CI [skip ci]",
      ref: "main",
    });
    expect(pipeline.id).toBeGreaterThan(0);

    // The other hook got each job's four moves (created, pending, running, success), and no deployment.
    const jobs = await waitFor(silent, 8);
    expect(jobs).toHaveLength(8);
    expect(new Set(jobs.map((d) => d.headers["x-gitlab-event"]))).toEqual(new Set(["Job Hook"]));
    await allowLocalHooks(w, false);
  });

  it("sends failed when the deploy job fails, and nothing for a job whose environment could not be made", async () => {
    const w = await world();
    const yaml = "bad:\n  script: [x]\n  environment: review/$NOPE\ndeploy:\n  script: [x]\n  environment: staging\n";
    const { project, api } = await ciProject(w, yaml);
    const path = `/${unique("failed")}`;
    await allowLocalHooks(w, true);
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false, deployment_events: true } })).status).toBe(201);
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const jobs = (await (await api.get(`/projects/${project.id}/jobs`)).json()) as { id: number; name: string; status: string; failure_reason?: string }[];
    expect(jobs.find((j) => j.name === "bad")).toMatchObject({ status: "failed", failure_reason: "environment_creation_failure" });
    const job = await claim(runner.token);
    expect(job.job_info.name).toBe("deploy");
    expect((await finish(job, "failed")).status).toBe(200);
    const list = payloads(await waitFor(path, 2));
    expect(list.map((p) => [p.status, p.deployable_id, p.environment, p.environment_tier])).toEqual([
      ["running", job.id, "staging", "staging"],
      ["failed", job.id, "staging", "staging"],
    ]);
    await allowLocalHooks(w, false);
  });
});

describe("Deployment Hook: deployments written through the API", () => {
  it("POST and PUT /projects/:id/deployments send the transition; a refused one answers 400", async () => {
    const w = await world();
    const { owner, project, api, sha } = await ciProject(w, "x:\n  script: [x]\n", { message: "Ship it\n\nbody" });
    const path = `/${unique("apideploy")}`;
    await allowLocalHooks(w, true);
    expect((await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false, deployment_events: true } })).status).toBe(201);
    const created = await api.post(`/projects/${project.id}/deployments`, { json: { environment: "review/app", sha, ref: "main", tag: false, status: "running" } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const [first] = payloads(await waitFor(path, 1));
    expect(first).toMatchObject({ status: "running", deployment_id: id });
    expect(await statusAndBody(await api.put(`/projects/${project.id}/deployments/${id}`, { json: { status: "running" } }))).toEqual([
      400,
      { message: { status: ['cannot transition via "run"'] } },
    ]);
    expect((await api.put(`/projects/${project.id}/deployments/${id}`, { json: { status: "success" } })).status).toBe(200);
    const list = payloads(await waitFor(path, 2));
    expect(list).toHaveLength(2);
    expect(list[1]).toMatchObject({
      object_kind: "deployment",
      status: "success",
      deployment_id: id,
      deployable_id: null,
      deployable_url: null,
      environment: "review/app",
      environment_slug: expect.stringMatching(/^review-app-[a-z0-9]+$/),
      environment_external_url: null,
      user: { id: owner.id, username: owner.username },
      commit_title: "Ship it",
      ref: "main",
    });
    await allowLocalHooks(w, false);
  });
});

describe("POST /projects/:id/hooks/:hook_id/test/deployment_events", () => {
  it("answers 422 without deployments, then delivers the newest deployment with its status", async () => {
    const w = await world();
    const { project, api, sha } = await ciProject(w, "x:\n  script: [x]\n");
    const path = `/${unique("testdeploy")}`;
    await allowLocalHooks(w, true);
    const res = await api.post(`/projects/${project.id}/hooks`, { json: { url: `${RECEIVER}${path}`, push_events: false } });
    const hook = (await res.json()) as { id: number };
    const test = () => api.post(`/projects/${project.id}/hooks/${hook.id}/test/deployment_events`);
    expect(await statusAndBody(await test())).toEqual([422, { message: "Ensure the project has deployments." }]);
    await api.post(`/projects/${project.id}/deployments`, { json: { environment: "production", sha, ref: "main", tag: false, status: "failed" } });
    const { id } = (await (await api.post(`/projects/${project.id}/deployments`, { json: { environment: "production", sha, ref: "main", tag: false, status: "canceled" } })).json()) as { id: number };
    expect(await statusAndBody(await test())).toEqual([201, { message: "201 Created" }]);
    const [delivery] = await received(path);
    expect(delivery.headers["x-gitlab-event"]).toBe("Deployment Hook");
    expect(JSON.parse(delivery.body)).toMatchObject({ object_kind: "deployment", status: "canceled", deployment_id: id, environment: "production" });
    const other = await w.user();
    expect(await statusAndBody(await w.as(other).post(`/projects/${project.id}/hooks/${hook.id}/test/deployment_events`))).toEqual([404, { message: "404 Project Not Found" }]);
    await allowLocalHooks(w, false);
  });
});
