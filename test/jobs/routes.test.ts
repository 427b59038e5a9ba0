import { gzipSync, strToU8, unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { ciProject, claim, createPipeline, eventually, finish, patchTrace, projectRunner } from "../helpers/ci";

const YAML = `
stages: [build, test, deploy]
build:
  stage: build
  script: [echo build > out.txt]
  artifacts:
    paths: [out.txt]
    reports:
      junit: report.xml
lint:
  stage: build
  script: [exit 3]
  allow_failure: true
test:
  stage: test
  needs: [build]
  dependencies: [build]
  script: [cat out.txt]
deploy:
  stage: deploy
  when: manual
  script: [echo deploy]
`;

const JUNIT_A = `<?xml version="1.0"?><testsuites><testsuite name="s"><testcase classname="C" name="ok" time="0.5"/><testcase classname="C" name="bad" time="1.25"><failure message="boom">expected 1</failure><system-out>out</system-out></testcase></testsuite></testsuites>`;
const JUNIT_B = `<testsuite name="t"><testcase classname="D" name="skip"><skipped/></testcase><testcase classname="D" name="err"><error message="e"/></testcase></testsuite>`;

async function upload(job: { id: number; token: string }, type: string, name: string, bytes: Uint8Array, format: string) {
  const form = new FormData();
  form.append("file", new File([bytes], name));
  form.append("artifact_type", type);
  form.append("artifact_format", format);
  return request("POST", `/jobs/${job.id}/artifacts`, null, { multipart: form, headers: { "JOB-TOKEN": job.token } });
}

describe("jobs API and artifacts through a pipeline", () => {
  it("runs needs, dependencies, artifacts, JUnit, allow_failure, manual, retry, erase", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, YAML);
    const runner = await projectRunner(api, project.id);
    const p = await createPipeline(api, project.id);

    const first = await claim(runner.token);
    const second = await claim(runner.token);
    const byName = Object.fromEntries([first, second].map((j) => [j.job_info.name, j]));
    const build = byName.build;
    const lint = byName.lint;
    expect(build.artifacts.map((a) => a.artifact_type)).toEqual(["archive", "junit"]);

    // GET /job answers the token's job; a personal token gets 404, nobody 401.
    const me = await request("GET", "/job", null, { headers: { "JOB-TOKEN": build.token } });
    expect(((await me.json()) as { id: number }).id).toBe(build.id);
    expect((await request("GET", "/job", null, { query: { job_token: build.token } })).status).toBe(200);
    expect(await statusAndBody(await api.get("/job"))).toEqual([404, { message: "404 Job Not Found" }]);
    expect(await statusAndBody(await request("GET", "/job", null))).toEqual([401, { message: "401 Unauthorized" }]);

    const zip = zipSync({ "out.txt": strToU8("built\n") });
    expect((await upload(build, "archive", "artifacts.zip", zip, "zip")).status).toBe(201);
    const junit = new Uint8Array([...gzipSync(strToU8(JUNIT_A)), ...gzipSync(strToU8(JUNIT_B))]);
    expect((await upload(build, "junit", "junit.xml.gz", junit, "gzip")).status).toBe(201);
    await patchTrace(build, 0, "Coverage: 81.5%\n");
    await finish(build, "success");
    await finish(lint, "failed", { failure_reason: "script_failure", exit_code: 3 });

    const test = await claim(runner.token);
    expect(test.job_info.name).toBe("test");
    expect(test.dependencies).toEqual([{ id: build.id, name: "build", token: test.token, artifacts_file: { filename: "artifacts.zip", size: zip.length } }]);
    const dep = await request("GET", `/jobs/${build.id}/artifacts`, null, { headers: { "JOB-TOKEN": test.token } });
    expect(dep.status).toBe(200);
    expect(new TextDecoder().decode(unzipSync(new Uint8Array(await dep.arrayBuffer()))["out.txt"])).toBe("built\n");
    await finish(test, "success");

    // A manual job that may fail is ignored: the pipeline passed (with warnings, from lint).
    const passed = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as { status: string },
      (b) => b.status === "success",
    );
    expect(passed.status).toBe("success");
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`)).json()) as { id: number; name: string; status: string; allow_failure: boolean; artifacts_file?: unknown }[];
    expect(jobs.map((j) => [j.name, j.status, j.allow_failure])).toEqual([
      ["deploy", "manual", true],
      ["test", "success", false],
      ["lint", "failed", true],
      ["build", "success", false],
    ]);
    expect(jobs[3].artifacts_file).toEqual({ filename: "artifacts.zip", size: zip.length });

    // Artifacts: whole archive, one file, by ref and job name.
    const whole = await api.get(`/projects/${project.id}/jobs/${build.id}/artifacts`);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(zip);
    expect(await (await api.get(`/projects/${project.id}/jobs/${build.id}/artifacts/out.txt`)).text()).toBe("built\n");
    expect((await api.get(`/projects/${project.id}/jobs/artifacts/main/download`, { query: { job: "build" } })).status).toBe(200);
    expect((await api.get(`/projects/${project.id}/jobs/${test.id}/artifacts`)).status).toBe(404);

    // test_report from the two-member gzip.
    const report = (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/test_report`)).json()) as Record<string, unknown> & { test_suites: { name: string; test_cases: { status: string; name: string; system_output: string | null }[] }[] };
    expect(report).toMatchObject({ total_count: 4, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 1, total_time: 1.75 });
    expect(report.test_suites[0].name).toBe("build");
    expect(report.test_suites[0].test_cases.map((t) => [t.status, t.name])).toEqual([["error", "err"], ["failed", "bad"], ["success", "ok"], ["skipped", "skip"]]);
    expect(report.test_suites[0].test_cases[1].system_output).toBe("expected 1\n\nSystem Out:\n\nout");

    // Play the manual job; a second play is 400.
    const deployId = jobs[0].id;
    const played = await api.post(`/projects/${project.id}/jobs/${deployId}/play`);
    expect([played.status, ((await played.json()) as { status: string }).status]).toEqual([200, "pending"]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/jobs/${deployId}/play`))).toEqual([400, { message: "400 Bad request - Unplayable Job" }]);
    const deploy = await claim(runner.token);
    await finish(deploy, "success");
    const success = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines/${p.id}`)).json()) as { status: string; coverage: string | null },
      (b) => b.status === "success",
    );
    expect(success).toMatchObject({ status: "success", coverage: null });

    // Retry a job: a new job, the old one hidden unless include_retried.
    expect(await statusAndBody(await api.post(`/projects/${project.id}/jobs/${deployId}/retry`))).toEqual([201, expect.objectContaining({ name: "deploy", status: "manual" })]);
    const pending = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines/${p.id}/jobs`, { query: { scope: "manual" } })).json()) as unknown[],
      (l) => l.length === 1,
    );
    expect(pending).toHaveLength(1);

    // Erase: trace and artifacts go; a job that never finished is not erasable.
    const erased = await api.post(`/projects/${project.id}/jobs/${build.id}/erase`);
    expect(erased.status).toBe(201);
    expect(((await erased.json()) as { artifacts: unknown[] }).artifacts).toEqual([]);
    expect(await (await api.get(`/projects/${project.id}/jobs/${build.id}/trace`)).text()).toBe("");
    const manualId = ((pending[0] as { id: number }).id);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/jobs/${manualId}/erase`))).toEqual([403, { message: "403 Forbidden - Job is not erasable!" }]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/jobs/${manualId}/retry`))).toEqual([403, { message: "403 Forbidden - Job is not retryable" }]);
  });

  it("cancels a pipeline; the runner's next update gets 403 with Job-Status: canceled", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "a:\n  script: x\nb:\n  stage: deploy\n  script: y\n");
    const runner = await projectRunner(api, project.id);
    const p = await createPipeline(api, project.id);
    const a = await claim(runner.token);
    const canceled = await api.post(`/projects/${project.id}/pipelines/${p.id}/cancel`);
    expect([canceled.status, ((await canceled.json()) as { status: string }).status]).toEqual([200, "canceled"]);
    const put = await finish(a, "success");
    expect([put.status, put.headers.get("Job-Status")]).toEqual([403, "canceled"]);
    const trace = await patchTrace(a, 0, "late");
    expect([trace.status, trace.headers.get("Job-Status")]).toEqual([403, "canceled"]);
  });
});

describe("GET /projects/:id/jobs", () => {
  it("takes scope as a string or an array; bad scope is 400; flat statement count", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "a:\n  script: x\nb:\n  script: y\n");
    await createPipeline(api, project.id);
    const names = async (query: Record<string, string | string[]>) => ((await (await api.get(`/projects/${project.id}/jobs`, { query })).json()) as { name: string }[]).map((j) => j.name);
    expect(await names({})).toEqual(["b", "a"]);
    expect(await names({ scope: "pending" })).toEqual(["b", "a"]);
    expect(await names({ "scope[]": ["success", "failed"] })).toEqual([]);
    expect(await statusAndBody(await api.get(`/projects/${project.id}/jobs`, { query: { scope: "nope" } }))).toEqual([400, { error: "scope does not have a valid value" }]);
    const one = await api.get(`/projects/${project.id}/jobs`, { query: { per_page: 1 } });
    const many = await api.get(`/projects/${project.id}/jobs`, { query: { per_page: 100 } });
    expect(one.headers.get("X-Query-Count")).toBe(many.headers.get("X-Query-Count"));
    expect(Number(one.headers.get("X-Query-Count"))).toBeLessThanOrEqual(6);
    expect((await w.as(w.stranger).get(`/projects/${project.id}/jobs`)).status).toBe(404);
  });
});
