import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { ciProject, createPipeline, eventually } from "../helpers/ci";

const YAML = "build:\n  script: echo hi\nchild:\n  stage: deploy\n  trigger:\n    include: ci/child.yml\n    strategy: depend\n";

describe("pipelines for pushes (POST /projects/:id/repository/commits)", () => {
  it("creates a push pipeline, skips [skip ci], and runs a child pipeline through a bridge", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, YAML, { files: { "ci/child.yml": "inner:\n  script: echo child\n" } });
    const list = async () => (await (await api.get(`/projects/${project.id}/pipelines`)).json()) as { id: number; source: string; sha: string; status: string }[];
    expect(await list()).toEqual([]);
    const res = await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Change", actions: [{ action: "create", file_path: "a.txt", content: "a" }] },
    });
    const commit = (await res.json()) as { id: string };
    const pipelines = await eventually(list, (l) => l.length === 1 && l[0].status === "pending");
    expect(pipelines).toMatchObject([{ source: "push", sha: commit.id, status: "pending" }]);
    const full = (await (await api.get(`/projects/${project.id}/pipelines/${pipelines[0].id}`)).json()) as { before_sha: string };
    expect(full.before_sha).not.toBe("0000000000000000000000000000000000000000");

    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Docs [skip ci]", actions: [{ action: "create", file_path: "b.txt", content: "b" }] },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await list()).toHaveLength(1);

    const bridges = (await (await api.get(`/projects/${project.id}/pipelines/${pipelines[0].id}/bridges`)).json()) as { name: string; status: string; downstream_pipeline: unknown }[];
    expect(bridges).toMatchObject([{ name: "child", status: "created", downstream_pipeline: null }]);
  });

  it("stores a failed pipeline with yaml_errors for a push whose config is invalid", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "job:\n  script: x\n");
    await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "Break", actions: [{ action: "update", file_path: ".gitlab-ci.yml", content: "job:\n  script: x\n  when: later\n" }] },
    });
    const pipelines = await eventually(
      async () => (await (await api.get(`/projects/${project.id}/pipelines`, { query: { yaml_errors: true } })).json()) as { id: number; status: string }[],
      (l) => l.length === 1,
    );
    expect(pipelines[0].status).toBe("failed");
    const full = (await (await api.get(`/projects/${project.id}/pipelines/${pipelines[0].id}`)).json()) as { yaml_errors: string };
    expect(full.yaml_errors).toBe("jobs:job when should be one of: on_success, on_failure, always, manual, delayed");
  });
});

/**
 * `rules:changes` and `only:changes` on push pipelines, as GitLab documents them: the
 * paths are the diff between the push's `before` and its new commit (Gitlab::Git::Push#modified_paths);
 * a new branch has no `before`, so `changes` is true for every job (no `compare_to`); pipelines not made
 * by a push (the API) also take `changes` as true.
 */
describe("rules:changes and only:changes against the push diff", () => {
  const YAML = `
always:
  script: echo always
docs:
  script: echo docs
  rules:
    - changes: ["docs/**/*"]
backend:
  script: echo backend
  only:
    changes: ["src/*.js"]
readme:
  script: echo readme
  rules:
    - changes: [README.md]
      when: manual
    - when: never
frontend:
  script: echo frontend
  except:
    changes: ["src/*.js"]
`;
  type Pipeline = { id: number; sha: string; ref: string; source: string };

  async function pushAndJobs(api: Awaited<ReturnType<typeof ciProject>>["api"], projectId: number, body: Record<string, unknown>): Promise<{ pipeline: Pipeline; jobs: Record<string, string> }> {
    const res = await api.post(`/projects/${projectId}/repository/commits`, { json: body });
    expect(res.status).toBe(201);
    const commit = (await res.json()) as { id: string };
    const pipelines = await eventually(
      async () => (await (await api.get(`/projects/${projectId}/pipelines`, { query: { sha: commit.id } })).json()) as Pipeline[],
      (l) => l.length === 1,
    );
    expect(pipelines).toMatchObject([{ sha: commit.id, source: "push" }]);
    // The pipeline's jobs are written `created` and then processed by its coordinator: wait for that step
    // (it ran after the read on a loaded machine).
    const jobs = await eventually(
      async () => (await (await api.get(`/projects/${projectId}/pipelines/${pipelines[0].id}/jobs`)).json()) as { name: string; status: string }[],
      (l) => l.length > 0 && l.every((j) => j.status !== "created"),
    );
    return { pipeline: pipelines[0], jobs: Object.fromEntries(jobs.map((j) => [j.name, j.status]).sort()) };
  }

  it("builds each push's jobs from the files that push changed", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, YAML, { files: { "README.md": "hello\n", "src/app.js": "1\n", "docs/guide/intro.md": "intro\n" } });

    const docs = await pushAndJobs(api, project.id, { branch: "main", commit_message: "Docs", actions: [{ action: "update", file_path: "docs/guide/intro.md", content: "intro 2\n" }] });
    expect(docs.jobs).toEqual({ always: "pending", docs: "pending", frontend: "pending" });

    const src = await pushAndJobs(api, project.id, { branch: "main", commit_message: "Code", actions: [{ action: "update", file_path: "src/app.js", content: "2\n" }] });
    expect(src.jobs).toEqual({ always: "pending", backend: "pending" });

    // A rename counts both paths: README.md leaves, so the readme rule matches (and `when: manual` applies).
    const moved = await pushAndJobs(api, project.id, { branch: "main", commit_message: "Move", actions: [{ action: "move", previous_path: "README.md", file_path: "docs/README.md" }] });
    expect(moved.jobs).toEqual({ always: "pending", docs: "pending", frontend: "pending", readme: "manual" });

    // A nested path does not match `src/*.js` (fnmatch with FNM_PATHNAME), so only `except` sees no change.
    const nested = await pushAndJobs(api, project.id, { branch: "main", commit_message: "Nested", actions: [{ action: "create", file_path: "src/lib/util.js", content: "u\n" }] });
    expect(nested.jobs).toEqual({ always: "pending", frontend: "pending" });
  });

  it("takes changes as true for a new branch (no before sha) and for pipelines made through the API", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, YAML, { files: { "README.md": "hello\n", "src/app.js": "1\n" } });
    const branch = await pushAndJobs(api, project.id, {
      branch: "feature",
      start_branch: "main",
      commit_message: "New branch",
      actions: [{ action: "create", file_path: "notes.txt", content: "n\n" }],
    });
    expect(branch.pipeline.ref).toBe("feature");
    // Every `changes` is true: `except: changes` drops frontend, `only`/`rules` keep the others.
    expect(branch.jobs).toEqual({ always: "pending", backend: "pending", docs: "pending", readme: "manual" });
    const full = (await (await api.get(`/projects/${project.id}/pipelines/${branch.pipeline.id}`)).json()) as { before_sha: string };
    expect(full.before_sha).toBe("0000000000000000000000000000000000000000");

    const viaApi = await createPipeline(api, project.id, "main");
    const jobs = (await (await api.get(`/projects/${project.id}/pipelines/${viaApi.id}/jobs`)).json()) as { name: string; status: string }[];
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]).sort())).toEqual({ always: "pending", backend: "pending", docs: "pending", readme: "manual" });
  });
});
