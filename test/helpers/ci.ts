// Shared set-up for CI tests: a project whose `main` has a .gitlab-ci.yml, and runners.
import { expect } from "vitest";
import type { Client } from "./client";
import { request, worker } from "./client";
import type { TestUser, World } from "./world";

export async function ciProject(w: World, yaml: string, opts: { files?: Record<string, string>; message?: string; developers?: TestUser[]; reporters?: TestUser[]; guests?: TestUser[]; visibility?: "private" | "public" } = {}) {
  const owner = await w.user();
  const project = await w.project({ owner, developers: opts.developers, reporters: opts.reporters, guests: opts.guests, visibility: opts.visibility });
  const api = w.as(owner);
  const actions = [
    { action: "create", file_path: ".gitlab-ci.yml", content: yaml },
    ...Object.entries(opts.files ?? {}).map(([file_path, content]) => ({ action: "create", file_path, content })),
  ];
  const res = await api.post(`/projects/${project.id}/repository/commits`, {
    json: { branch: "main", commit_message: opts.message ?? "Add CI [skip ci]", actions },
  });
  expect(res.status).toBe(201);
  const commit = (await res.json()) as { id: string };
  return { owner, project, api, sha: commit.id };
}

export async function createPipeline(api: Client, projectId: number, ref = "main", variables?: unknown[]) {
  const res = await api.post(`/projects/${projectId}/pipeline`, { json: { ref, ...(variables ? { variables } : {}) } });
  const body = (await res.json()) as Record<string, unknown> & { id: number; status: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** A project runner made by a maintainer through `POST /user/runners` (sees only that project's jobs). */
export async function projectRunner(api: Client, projectId: number, opts: { tags?: string[]; runUntagged?: boolean } = {}) {
  const res = await api.post("/user/runners", {
    json: { runner_type: "project_type", project_id: projectId, tag_list: opts.tags ?? [], run_untagged: opts.runUntagged ?? true, description: "test runner" },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; token: string };
}

export type Claimed = {
  id: number;
  token: string;
  job_info: { name: string; stage: string; pipeline_id: number; project_id: number };
  variables: { key: string; value: string; public: boolean; masked: boolean }[];
  steps: { name: string; script: string[] }[];
  artifacts: { artifact_type: string; paths: string[] }[];
  dependencies: { id: number; name: string; artifacts_file?: { filename: string; size: number } }[];
};

export async function requestJob(runnerToken: string, extra: Record<string, unknown> = {}) {
  const res = await request("POST", "/jobs/request", null, { json: { token: runnerToken, info: { name: "test" }, ...extra } });
  if (res.status === 204) return { status: 204 as const, lastUpdate: res.headers.get("X-GitLab-Last-Update"), job: null };
  // Every candidate was locked by a concurrent claim or by pipeline processing: ask again (claim() does).
  if (res.status === 409) return { status: 409 as const, lastUpdate: null, job: null };
  expect(res.status).toBe(201);
  expect(res.headers.get("content-type")).toBe("application/json");
  return { status: 201 as const, lastUpdate: res.headers.get("X-GitLab-Last-Update"), job: (await res.json()) as Claimed };
}

/** Claims the next job, waiting briefly while processing (after a finish) enqueues it. */
export async function claim(runnerToken: string): Promise<Claimed> {
  for (let i = 0; i < 50; i++) {
    const { job } = await requestJob(runnerToken);
    if (job) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no job came");
}

export async function patchTrace(job: { id: number; token: string }, start: number, text: string) {
  return worker.fetch(
    new Request(`http://edgeforge.test/api/v4/jobs/${job.id}/trace`, {
      method: "PATCH",
      headers: { "JOB-TOKEN": job.token, "Content-Range": `${start}-${start + Math.max(0, text.length - 1)}`, "Content-Type": "text/plain" },
      body: text,
    }),
  );
}

export async function finish(job: { id: number; token: string }, state: "success" | "failed", extra: Record<string, unknown> = {}) {
  return request("PUT", `/jobs/${job.id}`, null, { json: { token: job.token, state, ...extra } });
}

export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, tries = 50): Promise<T> {
  let last: T = await fn();
  for (let i = 0; i < tries && !ok(last); i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}
