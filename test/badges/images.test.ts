import { describe, expect, it } from "vitest";
import { BASE, request } from "../helpers/client";
import { world } from "../helpers/world";
import { ciProject, claim, createPipeline, eventually, finish, patchTrace, projectRunner } from "../helpers/ci";

const YAML = "test:\n  script: [echo hi]\n  coverage: '/Coverage: \\d+\\.\\d+%/'\n";

const badge = (path: string, query: Record<string, string> = {}, token: string | null = null) => request("GET", `${BASE}/${path}`, token, { query });

async function svgOf(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/svg+xml");
  expect(res.headers.get("cache-control")).toBe("no-cache");
  return res.text();
}

/** The value text and color of a badge (the second path's fill, the last text's content). */
function valueOf(svg: string) {
  const fills = [...svg.matchAll(/<path fill="([^"]+)"/g)].map((m) => m[1]);
  const texts = [...svg.matchAll(/<text [^>]*>\s*([^<]*?)\s*<\/text>/g)].map((m) => m[1]);
  return { key: texts[0], value: texts[3], color: fills[1], width: /<svg [^>]*width="(\d+)"/.exec(svg)![1] };
}

describe("GET /:namespace/:project/badges/:ref/pipeline.svg and coverage.svg", () => {
  it("shows the ref's newest pipeline status and the last successful pipeline's coverage", async () => {
    const w = await world();
    const { project, api } = await ciProject(w, YAML, { visibility: "public" });
    const path = `${project.fullPath}/badges/main`;
    expect(valueOf(await svgOf(await badge(`${path}/pipeline.svg`)))).toEqual({ key: "pipeline", value: "unknown", color: "#9f9f9f", width: "116" });
    expect(valueOf(await svgOf(await badge(`${path}/coverage.svg`)))).toEqual({ key: "coverage", value: "unknown", color: "#9f9f9f", width: "116" });
    const pipeline = await createPipeline(api, project.id);
    expect(valueOf(await svgOf(await badge(`${path}/pipeline.svg`)))).toMatchObject({ value: "pending", color: "#dfb317" });
    const runner = await projectRunner(api, project.id);
    const job = await claim(runner.token);
    expect((await patchTrace(job, 0, "running tests\nCoverage: 87.50%\n")).status).toBe(202);
    expect((await finish(job, "success")).status).toBe(200);
    await eventually(async () => (await (await api.get(`/projects/${project.id}/pipelines/${pipeline.id}`)).json()) as { status: string }, (p) => p.status === "success");
    expect(valueOf(await svgOf(await badge(`${path}/pipeline.svg`)))).toMatchObject({ value: "passed", color: "#4c1" });
    expect(valueOf(await svgOf(await badge(`${path}/coverage.svg`)))).toMatchObject({ value: "87.50%", color: "#dfb317" });
    expect(valueOf(await svgOf(await badge(`${path}/coverage.svg`, { job: "test" })))).toMatchObject({ value: "87.50%" });
    expect(valueOf(await svgOf(await badge(`${path}/coverage.svg`, { job: "nope" })))).toMatchObject({ value: "unknown", color: "#9f9f9f" });
    // key_text up to 64 characters and key_width 1 to 512, else the defaults.
    expect(valueOf(await svgOf(await badge(`${path}/pipeline.svg`, { key_text: "build", key_width: "100" })))).toEqual({ key: "build", value: "passed", color: "#4c1", width: "154" });
    expect(valueOf(await svgOf(await badge(`${path}/pipeline.svg`, { key_text: "x".repeat(65), key_width: "999" })))).toMatchObject({ key: "pipeline", width: "116" });
    // Another ref has no pipeline.
    expect(valueOf(await svgOf(await badge(`${project.fullPath}/badges/other/pipeline.svg`)))).toMatchObject({ value: "unknown" });
  });

  it("serves private projects to readers only (private_token or PRIVATE-TOKEN), else 404", async () => {
    const w = await world();
    const { project, owner } = await ciProject(w, YAML, { visibility: "private" });
    const path = `${project.fullPath}/badges/main/pipeline.svg`;
    expect((await badge(path)).status).toBe(404);
    expect((await badge(path, {}, w.stranger.token)).status).toBe(404);
    expect(valueOf(await svgOf(await badge(path, { private_token: owner.token })))).toMatchObject({ value: "unknown" });
    expect(valueOf(await svgOf(await badge(path, {}, owner.token)))).toMatchObject({ value: "unknown" });
    expect((await badge(`nobody/nothing/badges/main/pipeline.svg`)).status).toBe(404);
  });
});
