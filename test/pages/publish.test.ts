import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { publishPagesJob } from "../../functions/pages/services";
import type { Bindings } from "../../functions/kernel/env";
import { withDb } from "../helpers/db";
import { world } from "../helpers/world";
import { pagesProject, published, runPagesJob, siteOf, visit } from "./support";

const bindings = env as unknown as Bindings;

describe("publishPagesJob (the edgeforge-pages queue's consumer)", () => {
  it("does nothing for a redelivered message, and republishes a job whose deployment died half-way", async () => {
    const w = await world();
    const { api, project, runner } = await pagesProject(w);
    const jobId = await runPagesJob(runner.token, api, project.id, { "index.html": "once" });
    await published(api, project.id);
    expect(await withDb((db) => publishPagesJob(bindings, db, jobId))).toEqual({ status: "skipped", reason: "already published" });

    // A publish that wrote its row and some files, then died: not current, so the next attempt replaces it.
    await withDb((db) => db.execute(sql`UPDATE project_pages_metadata SET pages_deployment_id = NULL, deployed = false WHERE project_id = ${project.id}`));
    await bindings.BLOBS.put(`pages/${project.id}/dead/half.html`, "x");
    await withDb((db) => db.execute(sql`UPDATE pages_deployments SET r2_prefix = ${`pages/${project.id}/dead/`} WHERE ci_build_id = ${jobId}`));
    const { host, prefix } = siteOf(project.fullPath);
    expect((await visit(host, `${prefix}/`)).status).toBe(404);
    const again = await withDb((db) => publishPagesJob(bindings, db, jobId));
    expect(again).toMatchObject({ status: "published", files: 1 });
    expect(await (await visit(host, `${prefix}/`)).text()).toBe("once");
    expect((await bindings.BLOBS.list({ prefix: `pages/${project.id}/dead/` })).objects).toEqual([]);
  });

  it("skips jobs that are not succeeded pages jobs with artifacts", async () => {
    expect(await withDb((db) => publishPagesJob(bindings, db, 2147483000))).toEqual({ status: "skipped", reason: "not a succeeded pages job with artifacts" });
  });
});
