import { describe, expect, it } from "vitest";
import { world } from "../helpers/world";
import { claim, createPipeline, finish, projectRunner } from "../helpers/ci";
import { basic, call } from "./support";

describe("CI_REGISTRY variables (POST /jobs/request)", () => {
  it("gives a job the registry, its image path and the job token as its registry login", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, owners: [owner] });
    const api = w.as(owner);
    const commit = await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "CI", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: "build:\n  script: [echo build]\n" }] },
    });
    expect(commit.status).toBe(201);
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id, "main");
    const job = await claim(runner.token);
    try {
      const vars = Object.fromEntries((job.variables as { key: string; value: string; masked: boolean }[]).map((v) => [v.key, v]));
      expect(vars.CI_REGISTRY.value).toBe("edgeforge.test");
      expect(vars.CI_REGISTRY_IMAGE.value).toBe(`edgeforge.test/${project.fullPath.toLowerCase()}`);
      expect(vars.CI_REGISTRY_USER.value).toBe("gitlab-ci-token");
      expect(vars.CI_REGISTRY_PASSWORD).toMatchObject({ value: vars.CI_JOB_TOKEN.value, masked: true });
      // The job logs in with them and may push to its own project's images.
      const image = project.fullPath.toLowerCase();
      const res = await call("GET", `/jwt/auth?service=container_registry&scope=repository:${image}:pull,push`, basic(vars.CI_REGISTRY_PASSWORD.value, vars.CI_REGISTRY_USER.value));
      const token = ((await res.json()) as { token: string }).token;
      const access = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).access;
      expect(access).toEqual([{ type: "repository", name: image, actions: ["pull", "push"] }]);
    } finally {
      await finish(job, "success");
    }
  });
});
