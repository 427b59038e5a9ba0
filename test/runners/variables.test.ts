import { describe, expect, it } from "vitest";
import { unique, world } from "../helpers/world";
import { claim, createPipeline, finish, projectRunner } from "../helpers/ci";

type Json = Record<string, any>;

const YAML = `
variables:
  FROM_YAML: yaml
  OVERRIDDEN: yaml
plain:
  script: [echo plain]
deploy:
  script: [echo deploy]
  environment: { name: production }
`;

describe("job payload variables (POST /jobs/request)", () => {
  it("carries instance, group and project variables by precedence, protected only on protected refs, by environment scope", async () => {
    const w = await world();
    const owner = await w.user();
    const parent = await w.group({ owners: [owner] });
    const child = await w.group({ parent, owners: [owner] });
    const project = await w.project({ group: child, owners: [owner] });
    const api = w.as(owner);
    const commit = await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "CI [skip ci]", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: YAML }] },
    });
    expect(commit.status).toBe(201);
    const instanceKey = unique("INST").replace(/[^A-Za-z0-9_]/g, "_");
    const post = async (url: string, body: Record<string, unknown>) => expect((await (url.startsWith("/admin") ? w.root : api).post(url, { json: body })).status).toBe(201);
    await post("/admin/ci/variables", { key: instanceKey, value: "instance" });
    await post(`/groups/${parent.id}/variables`, { key: "GROUPED", value: "parent" });
    await post(`/groups/${parent.id}/variables`, { key: "PARENT_ONLY", value: "parent" });
    await post(`/groups/${child.id}/variables`, { key: "GROUPED", value: "child" });
    await post(`/projects/${project.id}/variables`, { key: "OVERRIDDEN", value: "project" });
    await post(`/projects/${project.id}/variables`, { key: "SECRET", value: "protected-secret", protected: true, masked: true });
    await post(`/projects/${project.id}/variables`, { key: "SCOPED", value: "any" });
    await post(`/projects/${project.id}/variables`, { key: "SCOPED", value: "prod", environment_scope: "prod*" });
    await post(`/projects/${project.id}/variables`, { key: "REVIEW_ONLY", value: "r", environment_scope: "review/*" });
    // The first push protected `main` (the default branch protection).
    expect((await api.get(`/projects/${project.id}/protected_branches/main`)).status).toBe(200);
    const runner = await projectRunner(api, project.id);

    const varsOf = (job: { variables: { key: string; value: string; masked: boolean }[] }) => Object.fromEntries(job.variables.map((v) => [v.key, v]));
    try {
      await createPipeline(api, project.id, "main", [{ key: "OVERRIDDEN", value: "api" }]);
      const jobs = [await claim(runner.token), await claim(runner.token)];
      const plain = varsOf(jobs.find((j) => j.job_info.name === "plain")!);
      const deploy = varsOf(jobs.find((j) => j.job_info.name === "deploy")!);
      expect(plain[instanceKey].value).toBe("instance");
      expect([plain.GROUPED.value, plain.PARENT_ONLY.value, plain.FROM_YAML.value, plain.OVERRIDDEN.value]).toEqual(["child", "parent", "yaml", "api"]);
      expect(plain.SECRET).toMatchObject({ value: "protected-secret", masked: true });
      expect(plain.SCOPED.value).toBe("any");
      expect(deploy.SCOPED.value).toBe("prod");
      expect(plain.REVIEW_ONLY).toBeUndefined();
      expect(deploy.REVIEW_ONLY).toBeUndefined();
      for (const job of jobs) await finish(job, "success");

      expect((await api.delete(`/projects/${project.id}/protected_branches/main`)).status).toBe(204);
      await createPipeline(api, project.id, "main");
      const last = await claim(runner.token);
      const unprotected = varsOf(last);
      expect(unprotected.SECRET).toBeUndefined();
      expect(unprotected.OVERRIDDEN.value).toBe("project");
      // Finishing goes through the pipeline's object, after the claim's own processing.
      expect((await finish(last, "success")).status).toBe(200);
    } finally {
      await w.root.delete(`/admin/ci/variables/${instanceKey}`);
    }
  });
});
