// Pages tests' own set-up: a project whose `pages` job uploads a `public/` archive through the runner
// protocol and succeeds, then the wait for the publish (the edgeforge-pages queue's consumer).
import { strToU8, zipSync } from "fflate";
import { expect } from "vitest";
import { request, worker } from "../helpers/client";
import { ciProject, claim, createPipeline, eventually, finish, projectRunner } from "../helpers/ci";
import type { TestUser, World } from "../helpers/world";

export const PAGES_YAML = `
pages:
  script: [mkdir -p public, echo hi > public/index.html]
  artifacts:
    paths: [public]
`;

export const PAGES_DOMAIN = "pages.localhost";

/** The site's host and path prefix for a project's full path (the default PAGES_DOMAIN). */
export function siteOf(fullPath: string) {
  const [ns, ...rest] = fullPath.toLowerCase().split("/");
  return { host: `${ns}.${PAGES_DOMAIN}`, prefix: `/${rest.join("/")}` };
}

/** A GET (or other method) on a Pages host, through the Worker's entry point. */
export function visit(host: string, path: string, headers: Record<string, string> = {}, method = "GET") {
  return worker.fetch(new Request(`http://${host}${path}`, { method, headers, redirect: "manual" }));
}

/** Runs one `pages` job to success with `files` under public/ in its archive; returns its id. */
export async function runPagesJob(runnerToken: string, api: ReturnType<World["as"]>, projectId: number, files: Record<string, string | Uint8Array>) {
  await createPipeline(api, projectId);
  const job = await claim(runnerToken);
  expect(job.job_info.name).toBe("pages");
  const entries = Object.fromEntries(Object.entries(files).map(([path, data]) => [`public/${path}`, typeof data === "string" ? strToU8(data) : data]));
  const zip = zipSync({ ...entries, "other.txt": strToU8("not published") });
  const form = new FormData();
  form.append("file", new File([zip], "artifacts.zip"));
  form.append("artifact_type", "archive");
  form.append("artifact_format", "zip");
  const up = await request("POST", `/jobs/${job.id}/artifacts`, null, { multipart: form, headers: { "JOB-TOKEN": job.token } });
  expect(up.status).toBe(201);
  expect((await finish(job, "success")).status).toBe(200);
  return job.id;
}

/** Waits until the site's current deployment is the one of `jobId` (read through the database-backed API). */
export async function published(api: ReturnType<World["as"]>, projectId: number, count = 1) {
  const res = await eventually(
    async () => (await (await api.get(`/projects/${projectId}/pages`)).json()) as { deployments: unknown[]; url: string },
    (b) => b.deployments?.length === count,
    300,
  );
  expect(res.deployments).toHaveLength(count);
  return res;
}

/** A project with a `pages` job, its owner's client and a runner. */
export async function pagesProject(w: World, opts: { visibility?: "private" | "public"; developers?: TestUser[]; guests?: TestUser[] } = {}) {
  const setup = await ciProject(w, PAGES_YAML, { visibility: opts.visibility ?? "public", developers: opts.developers, guests: opts.guests });
  const runner = await projectRunner(setup.api, setup.project.id);
  return { ...setup, runner };
}

/** A public project at a chosen path in the owner's namespace, with a `pages` job and a runner. */
export async function pagesProjectAt(w: World, owner: TestUser, path: string) {
  const project = await w.project({ owner, path, visibility: "public" });
  const api = w.as(owner);
  const res = await api.post(`/projects/${project.id}/repository/commits`, {
    json: { branch: "main", commit_message: "ci [skip ci]", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: PAGES_YAML }] },
  });
  expect(res.status).toBe(201);
  const runner = await projectRunner(api, project.id);
  return { api, project, runner };
}
