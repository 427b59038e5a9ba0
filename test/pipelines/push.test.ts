import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { ciProject, eventually } from "./helpers";

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
