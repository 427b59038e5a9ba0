import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { ciProject } from "../helpers/ci";
import { world } from "../helpers/world";

const VALID = `
stages: [build, test]
.base:
  tags: [docker]
build:
  extends: .base
  stage: build
  script: [make]
test:
  stage: test
  script: [make test]
  rules:
    - when: always
`;
const RULES_WARNING =
  "jobs:test may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings";

describe("POST /ci/lint", () => {
  it("answers valid with warnings, the merged YAML and the jobs when asked", async () => {
    const w = await world();
    const api = w.as(await w.user());
    const res = await api.post("/ci/lint", { json: { content: VALID, include_merged_yaml: true, include_jobs: true } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["valid", "errors", "warnings", "merged_yaml", "includes", "jobs", "status"]);
    expect(body).toMatchObject({ valid: true, errors: [], warnings: [RULES_WARNING], includes: [], status: "valid" });
    expect(body.merged_yaml).toMatch(/^---\nstages:\n- \.pre\n- build\n- test\n- \.post\n/);
    expect(body.merged_yaml).toContain("build:\n  tags:\n  - docker\n  stage: build\n");
    expect(body.jobs).toEqual([
      { name: "build", stage: "build", before_script: [], script: ["make"], after_script: [], tag_list: ["docker"], environment: null, when: "on_success", allow_failure: false, only: { refs: ["branches", "tags"] }, except: null },
      { name: "test", stage: "test", before_script: [], script: ["make test"], after_script: [], tag_list: [], environment: null, when: "on_success", allow_failure: false, only: null, except: null },
    ]);
  });

  it("leaves merged_yaml and jobs out unless asked; reads Ruby symbol keys as GitLab does", async () => {
    const w = await world();
    const api = w.as(await w.user());
    const body = await (await api.post("/ci/lint", { json: { content: "---\n:test_job:\n  :script: echo 1\n" } })).json();
    expect(body).toEqual({ valid: true, errors: [], warnings: [], includes: [], status: "valid" });
  });

  it("answers invalid with GitLab's messages", async () => {
    const w = await world();
    const api = w.as(await w.user());
    const lint = async (content: string) => (await api.post("/ci/lint", { json: { content } })).json();
    expect(await lint("job:\n  script: x\n  foo: bar\n")).toEqual({ valid: false, errors: ["jobs:job config contains unknown keys: foo"], warnings: [], includes: null, status: "invalid" });
    expect(await lint("job:\n  stage: nope\n  script: x\n")).toMatchObject({ errors: ["job job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post"] });
    expect(await lint("")).toMatchObject({ valid: false, errors: ["Please provide content of .gitlab-ci.yml"] });
    expect(await lint("include: other.yml\njob:\n  script: x\n")).toMatchObject({ valid: false, errors: ["Local file `other.yml` does not have project!"] });
    expect(await lint("a: [")).toMatchObject({ valid: false, status: "invalid" });
  });

  it("answers 400 without content and 401 to anonymous callers while sign-up needs approval", async () => {
    const w = await world();
    const api = w.as(await w.user());
    expect(await statusAndBody(await api.post("/ci/lint", { json: {} }))).toEqual([400, { error: "content is missing" }]);
    expect(await statusAndBody(await request("POST", "/ci/lint", null, { json: { content: "job:\n  script: x\n" } }))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET /projects/:id/ci/lint", () => {
  it("checks the default branch's configuration, with its local includes", async () => {
    const w = await world();
    const { api, project, sha } = await ciProject(w, "include: /ci/build.yml\ntest:\n  script: [make test]\n", { files: { "ci/build.yml": "build:\n  stage: build\n  script: [make]\n" } });
    const body = (await (await api.get(`/projects/${project.id}/ci/lint`, { query: { include_jobs: "true" } })).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(body.includes).toEqual([
      {
        context_project: project.fullPath,
        context_sha: sha,
        type: "local",
        location: "/ci/build.yml",
        blob: expect.stringMatching(new RegExp(`/${project.fullPath}/-/blob/${sha}/ci/build.yml$`)),
        raw: expect.stringMatching(new RegExp(`/${project.fullPath}/-/raw/${sha}/ci/build.yml$`)),
        extra: {},
      },
    ]);
    expect((body.jobs as { name: string }[]).map((j) => j.name)).toEqual(["build", "test"]);
    const plain = (await (await api.get(`/projects/${project.id}/ci/lint`)).json()) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(["valid", "errors", "warnings", "merged_yaml", "includes"]);
  });

  it("dry-runs a push pipeline: rules see the ref", async () => {
    const w = await world();
    const yaml = "only_main:\n  script: x\n  rules:\n    - if: '$CI_COMMIT_BRANCH == \"main\"'\nalways:\n  script: y\n";
    const { api, project } = await ciProject(w, yaml);
    await api.post(`/projects/${project.id}/repository/branches`, { json: { branch: "other", ref: "main" } });
    const names = async (query: Record<string, string>) =>
      ((await (await api.get(`/projects/${project.id}/ci/lint`, { query: { include_jobs: "true", ...query } })).json()) as { jobs: { name: string; when: string }[] }).jobs.map((j) => j.name);
    expect(await names({ dry_run: "true" })).toEqual(["only_main", "always"]);
    expect(await names({ dry_run: "true", ref: "other" })).toEqual(["always"]);
    const bad = (await (await api.get(`/projects/${project.id}/ci/lint`, { query: { dry_run: "true", ref: "nope" } })).json()) as Record<string, unknown>;
    expect(bad).toMatchObject({ valid: false, errors: ["Reference not found"], merged_yaml: null });
    // Nothing was stored.
    expect(await (await api.get(`/projects/${project.id}/pipelines`)).json()).toEqual([]);
  });

  it("answers 400 on bad input, 404 for strangers and empty repositories, 403 for callers without code access", async () => {
    const w = await world();
    const guest = await w.user();
    const { api, project } = await ciProject(w, "job:\n  script: x\n", { guests: [guest] });
    expect(await statusAndBody(await api.get(`/projects/${project.id}/ci/lint`, { query: { dry_run: "maybe" } }))).toEqual([400, { error: "dry_run is invalid" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/ci/lint`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/ci/lint`))).toEqual([403, { message: "403 Forbidden" }]);
    const empty = await w.project({ owner: await w.user() });
    expect(await statusAndBody(await w.root.get(`/projects/${empty.id}/ci/lint`))).toEqual([404, { message: "404 Repository Not Found" }]);
  });
});

describe("POST /projects/:id/ci/lint", () => {
  it("checks the given content in the project's context; a dry run builds jobs with rules applied", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "job:\n  script: x\n", { files: { "inc.yml": "inc_job:\n  script: z\n" } });
    const content = "include: inc.yml\nmanual:\n  script: y\n  when: manual\n";
    const body = (await (await api.post(`/projects/${project.id}/ci/lint`, { json: { content, include_jobs: true } })).json()) as { valid: boolean; jobs: { name: string; when: string; allow_failure: boolean }[] };
    expect(body.valid).toBe(true);
    expect(body.jobs.map((j) => [j.name, j.when, j.allow_failure])).toEqual([
      ["inc_job", "on_success", false],
      ["manual", "manual", true],
    ]);
    const dry = (await (await api.post(`/projects/${project.id}/ci/lint`, { json: { content, dry_run: true, include_jobs: true } })).json()) as Record<string, unknown>;
    expect(dry).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(Object.keys((dry.jobs as object[])[0])).toEqual(["name", "stage", "before_script", "script", "after_script", "tag_list", "environment", "when", "allow_failure"]);
    const invalid = await (await api.post(`/projects/${project.id}/ci/lint`, { json: { content: "job:\n  script: x\n  when: later\n" } })).json();
    expect(invalid).toEqual({ valid: false, errors: ["jobs:job when should be one of: on_success, on_failure, always, manual, delayed"], warnings: [], merged_yaml: null, includes: null });
  });

  it("needs create_pipeline (developer): 403 reporter, 404 stranger, 400 without content", async () => {
    const w = await world();
    const reporter = await w.user();
    const { api, project } = await ciProject(w, "job:\n  script: x\n", { reporters: [reporter] });
    expect(await statusAndBody(await w.as(reporter).post(`/projects/${project.id}/ci/lint`, { json: { content: "a: 1" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${project.id}/ci/lint`, { json: { content: "a: 1" } }))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await api.post(`/projects/${project.id}/ci/lint`, { json: {} }))).toEqual([400, { error: "content is missing" }]);
  });
});
