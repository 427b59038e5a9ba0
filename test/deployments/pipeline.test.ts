import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { ciProject, claim, createPipeline, eventually, finish, projectRunner } from "../helpers/ci";
import { world } from "../helpers/world";

const YAML = `
deploy:
  stage: deploy
  script: [echo deploy]
  environment:
    name: review/$CI_COMMIT_REF_SLUG
    url: https://$CI_ENVIRONMENT_SLUG.example.com
    on_stop: stop
    auto_stop_in: 1 day
stop:
  stage: deploy
  script: [echo stop]
  when: manual
  environment:
    name: review/$CI_COMMIT_REF_SLUG
    action: stop
`;

type Dep = { id: number; iid: number; status: string; ref: string; sha: string; environment: { name: string }; deployable: { id: number; name: string } | null };

describe("deployments made by CI jobs", () => {
  it("a deploy job creates its environment and deployment, which follow the job; stop plays on_stop", async () => {
    const w = await world();
    const { project, api, sha } = await ciProject(w, YAML);
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const list = async () => (await (await api.get(`/projects/${project.id}/deployments`)).json()) as Dep[];
    const [created] = await list();
    expect(created).toMatchObject({ iid: 1, status: "created", ref: "main", environment: { name: "review/main" }, deployable: { name: "deploy" } });

    const job = await claim(runner.token);
    expect(job.job_info.name).toBe("deploy");
    const vars = Object.fromEntries(job.variables.map((v) => [v.key, v.value]));
    expect(vars.CI_ENVIRONMENT_NAME).toBe("review/main");
    expect(vars.CI_ENVIRONMENT_ACTION).toBe("start");
    expect(vars.CI_ENVIRONMENT_TIER).toBe("development");
    expect(vars.CI_ENVIRONMENT_URL).toBe(`https://${vars.CI_ENVIRONMENT_SLUG}.example.com`);
    expect((await list())[0].status).toBe("running");

    await finish(job, "success");
    const [done] = await eventually(list, (l) => l[0].status === "success");
    expect(done.sha).toBe(sha);
    const envs = (await (await api.get(`/projects/${project.id}/environments`)).json()) as { id: number; name: string; external_url: string; state: string }[];
    expect(envs).toHaveLength(1);
    expect(envs[0]).toMatchObject({ name: "review/main", state: "available", external_url: `https://${vars.CI_ENVIRONMENT_SLUG}.example.com` });
    const single = (await (await api.get(`/projects/${project.id}/environments/${envs[0].id}`)).json()) as { last_deployment: Dep };
    expect(single.last_deployment).toMatchObject({ id: done.id, status: "success", deployable: { id: job.id } });

    // A job's deployment is not updated through the API.
    expect(await statusAndBody(await api.put(`/projects/${project.id}/deployments/${done.id}`, { json: { status: "failed" } }))).toEqual([
      403,
      { message: "403 Forbidden - Deployments created using GitLab CI can not be updated using the API" },
    ]);

    const stopping = await api.post(`/projects/${project.id}/environments/${envs[0].id}/stop`);
    expect(stopping.status).toBe(200);
    expect(((await stopping.json()) as { state: string }).state).toBe("stopping");
    const stopJob = await claim(runner.token);
    expect(stopJob.job_info.name).toBe("stop");
    expect(Object.fromEntries(stopJob.variables.map((v) => [v.key, v.value])).CI_ENVIRONMENT_ACTION).toBe("stop");
    await finish(stopJob, "success");
    const after = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/environments/${envs[0].id}`)).json()) as { state: string },
      (e) => e.state === "stopped",
    );
    expect(after.state).toBe("stopped");
  });

  it("a failed deploy job fails its deployment; a retry makes a new one", async () => {
    const w = await world();
    const { project, api } = await ciProject(w, "deploy:\n  script: [x]\n  environment: production\n");
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const job = await claim(runner.token);
    await finish(job, "failed");
    const list = async () => (await (await api.get(`/projects/${project.id}/deployments`)).json()) as Dep[];
    await eventually(list, (l) => l[0]?.status === "failed");
    expect((await api.post(`/projects/${project.id}/jobs/${job.id}/retry`)).status).toBe(201);
    const after = await list();
    expect(after.map((d) => [d.iid, d.status])).toEqual([
      [1, "failed"],
      [2, "created"],
    ]);
  });

  it("refuses an on_stop job that is not a stop job of the same environment", async () => {
    const w = await world();
    const { project, api } = await ciProject(w, "deploy:\n  script: [x]\n  environment:\n    name: prod\n    on_stop: nope\n");
    expect(await statusAndBody(await api.post(`/projects/${project.id}/pipeline`, { json: { ref: "main" } }))).toEqual([
      400,
      { message: { base: ["deploy job: on_stop job nope is not defined"] } },
    ]);
  });

  it("refuses a bad environment action; a name invalid once expanded fails the job", async () => {
    const w = await world();
    const bad = await ciProject(w, "deploy:\n  script: [x]\n  environment:\n    name: prod\n    action: moon\n");
    expect(await statusAndBody(await bad.api.post(`/projects/${bad.project.id}/pipeline`, { json: { ref: "main" } }))).toEqual([
      400,
      { message: { base: ["jobs:deploy:environment action should be start, stop, prepare, verify, or access"] } },
    ]);
    const { project, api } = await ciProject(w, "deploy:\n  script: [x]\n  environment: review/$EMPTY_NAME\n");
    const pipeline = await createPipeline(api, project.id);
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${pipeline.id}/jobs`)).json()) as { status: string; failure_reason?: string }[];
    expect(jobs).toMatchObject([{ status: "failed", failure_reason: "environment_creation_failure" }]);
    expect(await (await api.get(`/projects/${project.id}/deployments`)).json()).toEqual([]);
  });
});
