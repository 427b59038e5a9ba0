import { describe, expect, it } from "vitest";
import { ciProject, claim, createPipeline, finish, patchTrace, projectRunner } from "../helpers/ci";
import { world } from "../helpers/world";
import { browser } from "./support";
import { signedIn } from "./signed_in";

const YAML = "build:\n  stage: build\n  script: [make]\ntest:\n  stage: test\n  script: [make test]\n";

describe("GET /:project/-/pipelines and /-/pipelines/:id", () => {
  it("lists the pipelines and shows one's stages in order with their jobs", async () => {
    const w = await world();
    const { project, api } = await ciProject(w, YAML, { visibility: "public" });
    const pipeline = await createPipeline(api, project.id);
    const b = browser();
    const list = await b.get(`/${project.fullPath}/-/pipelines`);
    expect(list.status).toBe(200);
    expect(list.html).toContain(`href="/${project.fullPath}/-/pipelines/${pipeline.id}"`);
    const page = await b.get(`/${project.fullPath}/-/pipelines/${pipeline.id}`);
    expect(page.status).toBe(200);
    const build = page.html.indexOf("<h2>build</h2>");
    const test = page.html.indexOf("<h2>test</h2>");
    expect(build).toBeGreaterThan(0);
    expect(test).toBeGreaterThan(build);
    expect(page.html).toMatch(/ci-pending">pending<\/span> <a href="[^"]+\/-\/jobs\/\d+">build<\/a>/);
  });

  it("answers 404 to anonymous visitors and outsiders of a private project, and for a missing pipeline", async () => {
    const w = await world();
    const { project, api, owner } = await ciProject(w, YAML);
    const pipeline = await createPipeline(api, project.id);
    expect((await browser().get(`/${project.fullPath}/-/pipelines`)).status).toBe(404);
    expect((await browser().get(`/${project.fullPath}/-/pipelines/${pipeline.id}`)).status).toBe(404);
    expect((await (await signedIn(await w.user())).get(`/${project.fullPath}/-/pipelines/${pipeline.id}`)).status).toBe(404);
    expect((await (await signedIn(owner)).get(`/${project.fullPath}/-/pipelines/999999999`)).status).toBe(404);
  });
});

describe("GET /:project/-/jobs/:id, /raw and /trace.json", () => {
  it("shows a running job's log without its ANSI codes, follows it, and stops following when it ends", async () => {
    const w = await world();
    const { project, api, owner } = await ciProject(w, YAML);
    await createPipeline(api, project.id);
    const runner = await projectRunner(api, project.id);
    const job = await claim(runner.token);
    const first = "\x1b[32;1m$ make\x1b[0;m\n<b>building</b>\n";
    expect((await patchTrace(job, 0, first)).status).toBe(202);
    const b = await signedIn(owner);
    const page = await b.get(`/${project.fullPath}/-/jobs/${job.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("$ make\n&lt;b&gt;building&lt;/b&gt;\n</pre>");
    expect(page.html).toContain('id="job-status" class="badge ci-running"');
    expect(page.html).toMatch(/<script nonce="[^"]+">\(function\(\)\{var pre=document.getElementById\("job-log"\)/);
    const shown = /data-offset="(\d+)"/.exec(page.html)![1];
    expect((await patchTrace(job, first.length, "done\n")).status).toBe(202);
    const follow = await b.get(`/${project.fullPath}/-/jobs/${job.id}/trace.json?offset=${shown}`);
    expect(JSON.parse(follow.html)).toMatchObject({ id: job.id, status: "running", complete: false, append: true, content: "done\n" });
    const raw = await b.get(`/${project.fullPath}/-/jobs/${job.id}/raw`);
    expect(raw.res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(raw.html).toBe(first + "done\n");
    expect((await finish(job, "success")).status).toBe(200);
    const ended = await b.get(`/${project.fullPath}/-/jobs/${job.id}`);
    expect(ended.html).toContain("ci-success");
    expect(ended.html).not.toContain(`getElementById("job-log")`);
    const last = await b.get(`/${project.fullPath}/-/jobs/${job.id}/trace.json?offset=0`);
    expect(JSON.parse(last.html)).toMatchObject({ status: "success", complete: true });
  });

  it("answers 404 for a job of a private project to outsiders, and 400 for a bad offset", async () => {
    const w = await world();
    const { project, api, owner } = await ciProject(w, YAML);
    await createPipeline(api, project.id);
    const runner = await projectRunner(api, project.id);
    const job = await claim(runner.token);
    expect((await browser().get(`/${project.fullPath}/-/jobs/${job.id}`)).status).toBe(404);
    expect((await browser().get(`/${project.fullPath}/-/jobs/${job.id}/raw`)).status).toBe(404);
    expect((await (await signedIn(await w.user())).get(`/${project.fullPath}/-/jobs/${job.id}/trace.json`)).status).toBe(404);
    expect((await (await signedIn(owner)).get(`/${project.fullPath}/-/jobs/${job.id}/trace.json?offset=-1`)).status).toBe(400);
  });
});
