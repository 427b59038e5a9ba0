import { describe, expect, it } from "vitest";
import { BASE, worker } from "../helpers/client";
import { world } from "../helpers/world";
import { ciProject, claim, createPipeline, finish, projectRunner } from "../helpers/ci";

/**
 * Smart HTTP with a CI job token (Gitlab::Auth#build_access_token_check): user `gitlab-ci-token`, the
 * token of a running job as password; it reads what the job's user may read, never pushes, and is
 * refused (401) once the job has finished. The runner's clone itself is tested end to end
 * (test/e2e/ci.test.mjs).
 */
const basic = (login: string, password: string) => `Basic ${btoa(`${login}:${password}`)}`;

async function infoRefs(fullPath: string, service: "git-upload-pack" | "git-receive-pack", authorization: string) {
  const res = await worker.fetch(
    new Request(`${BASE}/${fullPath}.git/info/refs?service=${service}`, { headers: { Authorization: authorization, "Git-Protocol": "version=2" } }),
  );
  return { status: res.status, text: new TextDecoder().decode(await res.arrayBuffer()) };
}

describe("git over smart HTTP with a CI job token", () => {
  it("reads the job's project and what its user may read while the job runs; 401 after; never pushes", async () => {
    const w = await world();
    const { api, project, owner } = await ciProject(w, "job:\n  script: echo\n");
    const stranger = await w.user();
    const secret = await w.project({ owner: stranger });
    const shared = await w.project({ owner: stranger, reporters: [owner] });
    const publicOne = await w.project({ owner: stranger, visibility: "public" });
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const job = await claim(runner.token);
    const auth = basic("gitlab-ci-token", job.token);

    expect((await infoRefs(project.fullPath, "git-upload-pack", auth)).status).toBe(200);
    expect((await infoRefs(shared.fullPath, "git-upload-pack", auth)).status).toBe(200);
    expect((await infoRefs(publicOne.fullPath, "git-upload-pack", auth)).status).toBe(200);
    // A private project the job's user is no member of: as if it did not exist.
    expect(await infoRefs(secret.fullPath, "git-upload-pack", auth)).toEqual({
      status: 404,
      text: "The project you were looking for could not be found or you don't have permission to view it.",
    });
    // GitLab's auth_upload: the job token carries no push ability, even where its user may push.
    expect(await infoRefs(project.fullPath, "git-receive-pack", auth)).toEqual({ status: 403, text: "You are not allowed to upload code." });
    // The token is a job token only with the `gitlab-ci-token` login (other logins take personal access tokens).
    expect((await infoRefs(project.fullPath, "git-upload-pack", basic("someone", job.token))).status).toBe(401);

    expect((await finish(job, "success")).status).toBe(200);
    const after = await infoRefs(project.fullPath, "git-upload-pack", auth);
    expect(after.status).toBe(401);
    expect(after.text).toMatch(/^HTTP Basic: Access denied/);
    expect((await infoRefs(project.fullPath, "git-upload-pack", basic("gitlab-ci-token", "glcbt-not-a-token"))).status).toBe(401);
  });

  it("refuses the token of a job whose user is blocked (401)", async () => {
    const w = await world();
    const { api, project, owner } = await ciProject(w, "job:\n  script: echo\n");
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const job = await claim(runner.token);
    expect((await w.root.post(`/users/${owner.id}/block`)).status).toBe(201);
    expect((await infoRefs(project.fullPath, "git-upload-pack", basic("gitlab-ci-token", job.token))).status).toBe(401);
  });
});
