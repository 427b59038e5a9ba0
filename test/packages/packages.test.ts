import { describe, expect, it } from "vitest";
import { statusAndBody, worker } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world, type TestUser } from "../helpers/world";
import { ciProject, claim, createPipeline, finish, projectRunner } from "../helpers/ci";
import { env } from "cloudflare:test";
import { packageFiles } from "../../db/schema";
import { eq } from "drizzle-orm";

type Pkg = { id: number; name: string; version: string; package_type: string; status: string; _links: { web_path: string; delete_api_path?: string }; versions?: { version: string }[]; project_id?: number; project_path?: string };
type File = { id: number; package_id: number; file_name: string; size: number; file_md5: string; file_sha1: string; file_sha256: string };

async function hex(algorithm: string, text: string) {
  const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function rawPut(token: string, path: string, content: string): Promise<Response> {
  return worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { method: "PUT", headers: { "PRIVATE-TOKEN": token }, body: content }));
}

async function setup() {
  const w = await world();
  const dev = await w.user();
  const reporter = await w.user();
  const project = await w.project({ developers: [dev], reporters: [reporter] });
  return { w, dev, reporter, project };
}

describe("PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name", () => {
  it("stores the file in R2 with its digests; select=package_file answers the file", async () => {
    const { w, dev, project } = await setup();
    const res = await rawPut(dev.token, `/projects/${project.id}/packages/generic/tool/1.2.3/tool.bin`, "hello package");
    expect(await statusAndBody(res)).toEqual([201, { message: "201 Created" }]);
    const second = await rawPut(dev.token, `/projects/${project.id}/packages/generic/tool/1.2.3/tool.txt?select=package_file`, "second");
    expect(second.status).toBe(200);
    const file = (await second.json()) as File;
    expect(file).toMatchObject({ file: { url: `/api/v4/projects/${project.id}/packages/generic/tool/1.2.3/tool.txt` }, file_name: "tool.txt", size: 6, file_md5: await hex("MD5", "second"), file_sha1: await hex("SHA-1", "second"), file_sha256: await hex("SHA-256", "second") });
    const [row] = await w.db((db) => db.select().from(packageFiles).where(eq(packageFiles.id, file.id)));
    const object = await (env as unknown as { BLOBS: R2Bucket }).BLOBS.get(row.fileStore);
    expect(await object!.text()).toBe("second");
    const list = (await (await w.as(dev).get(`/projects/${project.id}/packages`)).json()) as Pkg[];
    expect(list).toMatchObject([{ name: "tool", version: "1.2.3", package_type: "generic", status: "default" }]);
  });

  it("answers 400 for invalid names and versions, 403 for reporters", async () => {
    const { dev, reporter, project } = await setup();
    expect(await statusAndBody(await rawPut(dev.token, `/projects/${project.id}/packages/generic/bad%20name/..1.0/x.bin?status=processing`, "x"))).toEqual([
      400,
      { error: "package_name is invalid, package_version is invalid, status does not have a valid value" },
    ]);
    expect(await statusAndBody(await rawPut(dev.token, `/projects/${project.id}/packages/generic/ok/1.0.0/x.bin?status=processing`, "x"))).toEqual([
      400,
      { error: "status does not have a valid value" },
    ]);
    expect(await statusAndBody(await rawPut(reporter.token, `/projects/${project.id}/packages/generic/ok/1.0.0/x.bin`, "x"))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

/**
 * The examples of GitLab's spec/lib/gitlab/regex_spec.rb for `generic_package_version_regex`
 * (`maven_version_regex` in 15.4), sent through the path, each percent-encoded as a client sends it.
 * The empty version is not among them: an empty segment is no route (404), as in GitLab.
 */
const ACCEPTED_VERSIONS = [
  "1.2.3",
  "1.3.350",
  "1.3.350-20201230123456",
  "1.2.3-rc1",
  "1.2.3g",
  "1.2",
  "1.2.bananas",
  "v1.2.4-build",
  "d50d836eb3de6177ce6c7a5482f27f9c2c84b672",
  "this_is_a_string_only",
  // and of `maven_version_regex`'s own examples
  "0",
  "1.2-SNAPSHOT",
  "2.0.0.v200706041905-7C78EK9E_EkMNfNOd2d8qq",
  "1.2-alpha-1-20050205.060708-1",
  "RELEASE",
  "v1.0.0",
];
const REFUSED_VERSIONS = [
  "..1.2.3",
  "  1.2.3",
  "1.2.3  \r\t",
  "\r\t 1.2.3",
  "1./2.3",
  "1.2.3-4/../../",
  "1.2.3-4%2e%2e%",
  "../../../../../1.2.3",
  "%2e%2e%2f1.2.3",
  "1...2",
];

describe("generic package versions (Gitlab::Regex.generic_package_version_regex)", () => {
  it("accepts every version GitLab accepts and refuses the rest with package_version is invalid", async () => {
    const { w, dev, project } = await setup();
    for (const version of ACCEPTED_VERSIONS) {
      const put = await rawPut(dev.token, `/projects/${project.id}/packages/generic/tool/${encodeURIComponent(version)}/tool.bin`, version);
      expect([version, await statusAndBody(put)]).toEqual([version, [201, { message: "201 Created" }]]);
      const got = await w.as(dev).get(`/projects/${project.id}/packages/generic/tool/${encodeURIComponent(version)}/tool.bin`);
      expect([version, got.status, await got.text()]).toEqual([version, 200, version]);
    }
    for (const version of REFUSED_VERSIONS) {
      const put = await rawPut(dev.token, `/projects/${project.id}/packages/generic/tool/${encodeURIComponent(version)}/tool.bin`, "x");
      expect([version, await statusAndBody(put)]).toEqual([version, [400, { error: "package_version is invalid" }]]);
    }
    // A long refused version answers at once (GitLab's pattern backtracks exponentially on it).
    const started = Date.now();
    expect((await rawPut(dev.token, `/projects/${project.id}/packages/generic/tool/${"a.".repeat(2000)}a!/tool.bin`, "x")).status).toBe(400);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("GET /projects/:id/packages/generic/:package_name/:package_version/:file_name", () => {
  it("downloads the newest file of that name; hidden packages download but are not listed", async () => {
    const { w, dev, reporter, project } = await setup();
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/app/2.0.0/app.tar`, "old");
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/app/2.0.0/app.tar?status=hidden`, "new");
    const res = await w.as(reporter).get(`/projects/${project.id}/packages/generic/app/2.0.0/app.tar`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(await res.text()).toBe("new");
    expect(await (await w.as(reporter).get(`/projects/${project.id}/packages`)).json()).toEqual([]);
    const hidden = (await (await w.as(reporter).get(`/projects/${project.id}/packages`, { query: { status: "hidden" } })).json()) as Pkg[];
    expect(hidden.map((p) => p.name)).toEqual(["app"]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/packages/generic/app/2.0.0/other.tar`))).toEqual([404, { message: "404 Not found" }]);
  });

  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/packages/generic/a/1.0.0/a.bin`));
});

describe("GET /projects/:id/packages", () => {
  it("filters and orders; delete_api_path only for those who may delete; flat statement count", async () => {
    const { w, dev, reporter, project } = await setup();
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/beta/1.0.0/b.bin`, "b");
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/alpha/2.0.0/a.bin`, "a");
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/alpha/1.0.0/a.bin`, "a");
    const names = async (user: TestUser, query: Record<string, string | number>) =>
      ((await (await w.as(user).get(`/projects/${project.id}/packages`, { query })).json()) as Pkg[]).map((p) => `${p.name}@${p.version}`);
    expect(await names(dev, {})).toEqual(["beta@1.0.0", "alpha@2.0.0", "alpha@1.0.0"]);
    expect(await names(dev, { order_by: "name", sort: "desc" })).toEqual(["beta@1.0.0", "alpha@1.0.0", "alpha@2.0.0"]);
    expect(await names(dev, { order_by: "version" })).toEqual(["beta@1.0.0", "alpha@1.0.0", "alpha@2.0.0"]);
    expect(await names(dev, { package_name: "LPH" })).toEqual(["alpha@2.0.0", "alpha@1.0.0"]);
    expect(await names(dev, { package_type: "npm" })).toEqual([]);
    const asDev = (await (await w.as(dev).get(`/projects/${project.id}/packages`)).json()) as Pkg[];
    expect(asDev[0]._links).toEqual({ web_path: `/${project.fullPath}/-/packages/${asDev[0].id}`, delete_api_path: `http://edgeforge.test/api/v4/projects/${project.id}/packages/${asDev[0].id}` });
    const asReporter = (await (await w.as(reporter).get(`/projects/${project.id}/packages`)).json()) as Pkg[];
    expect(asReporter[0]._links).toEqual({ web_path: `/${project.fullPath}/-/packages/${asDev[0].id}` });
    const one = await w.as(dev).get(`/projects/${project.id}/packages`, { query: { per_page: 1 } });
    const many = await w.as(dev).get(`/projects/${project.id}/packages`, { query: { per_page: 100 } });
    expect(one.headers.get("x-total")).toBe("3");
    expect(one.headers.get("x-query-count")).toBe(many.headers.get("x-query-count"));
    expect(Number(many.headers.get("x-query-count"))).toBeLessThanOrEqual(6);
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/packages`, { query: { order_by: "size" } }))).toEqual([
      400,
      { error: "order_by does not have a valid value" },
    ]);
  });

  it("shows public projects' packages to anonymous callers", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev], visibility: "public" });
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/pub/1.0.0/p.bin`, "p");
    const list = (await (await w.anonymous.get(`/projects/${project.id}/packages`)).json()) as Pkg[];
    expect(list.map((p) => p.name)).toEqual(["pub"]);
    expect(list[0]._links.delete_api_path).toBeUndefined();
  });

  forbidsRoles(["guest"], (w, p, user) => w.as(user).get(`/projects/${p.id}/packages`));
  hidesPrivateProject((w, p) => w.as(w.stranger).get(`/projects/${p.id}/packages`));
});

describe("GET /groups/:id/packages", () => {
  it("lists the packages of the group's projects and subgroups with project_path", async () => {
    const w = await world();
    const dev = await w.user();
    const group = await w.group({ developers: [dev] });
    const sub = await w.group({ parent: group });
    const top = await w.project({ group });
    const inner = await w.project({ group: sub });
    await rawPut(dev.token, `/projects/${top.id}/packages/generic/top/1.0.0/t.bin`, "t");
    await rawPut(dev.token, `/projects/${inner.id}/packages/generic/inner/1.0.0/i.bin`, "i");
    const list = (await (await w.as(dev).get(`/groups/${group.id}/packages`, { query: { order_by: "project_path" } })).json()) as Pkg[];
    expect(list.map((p) => [p.name, p.project_id, p.project_path])).toEqual(
      [["inner", inner.id, inner.fullPath], ["top", top.id, top.fullPath]].sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
    );
    const only = (await (await w.as(dev).get(`/groups/${group.id}/packages`, { query: { exclude_subgroups: true } })).json()) as Pkg[];
    expect(only.map((p) => p.name)).toEqual(["top"]);
    expect(await (await w.as(w.stranger).get(`/groups/${group.id}/packages`)).status).toBe(404);
  });
});

describe("GET /projects/:id/packages/:package_id", () => {
  it("answers the package with its other versions; its files", async () => {
    const { w, dev, project } = await setup();
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/lib/1.0.0/l.bin`, "1");
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/lib/1.1.0/l.bin`, "11");
    await rawPut(dev.token, `/projects/${project.id}/packages/generic/lib/1.1.0/l.sig`, "sig");
    const [newest] = (await (await w.as(dev).get(`/projects/${project.id}/packages`, { query: { sort: "desc" } })).json()) as Pkg[];
    const pkg = (await (await w.as(dev).get(`/projects/${project.id}/packages/${newest.id}`)).json()) as Pkg;
    expect(pkg).toMatchObject({ id: newest.id, version: "1.1.0" });
    expect(pkg.versions!.map((v) => v.version)).toEqual(["1.0.0"]);
    const files = (await (await w.as(dev).get(`/projects/${project.id}/packages/${newest.id}/package_files`)).json()) as File[];
    expect(files.map((f) => [f.file_name, f.size])).toEqual([["l.bin", 2], ["l.sig", 3]]);
    expect(await statusAndBody(await w.as(dev).get(`/projects/${project.id}/packages/2147483000`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /projects/:id/packages/:package_id", () => {
  it("answers 204 and removes the files from R2; then 404; 403 for reporters", async () => {
    const { w, dev, reporter, project } = await setup();
    const file = (await (await rawPut(dev.token, `/projects/${project.id}/packages/generic/gone/1.0.0/g.bin?select=package_file`, "g")).json()) as File;
    const [row] = await w.db((db) => db.select().from(packageFiles).where(eq(packageFiles.id, file.id)));
    expect(await statusAndBody(await w.as(reporter).delete(`/projects/${project.id}/packages/${file.package_id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await w.as(dev).delete(`/projects/${project.id}/packages/${file.package_id}`)).status).toBe(204);
    expect(await (env as unknown as { BLOBS: R2Bucket }).BLOBS.get(row.fileStore)).toBeNull();
    expect(await statusAndBody(await w.as(dev).delete(`/projects/${project.id}/packages/${file.package_id}`))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /projects/:id/packages/:package_id/package_files/:package_file_id", () => {
  it("answers 204, removes the row and the R2 object and keeps the package and its other files; then 404", async () => {
    const { w, dev, project } = await setup();
    const keep = (await (await rawPut(dev.token, `/projects/${project.id}/packages/generic/two/1.0.0/keep.bin?select=package_file`, "k")).json()) as File;
    const drop = (await (await rawPut(dev.token, `/projects/${project.id}/packages/generic/two/1.0.0/drop.bin?select=package_file`, "d")).json()) as File;
    expect(drop.package_id).toBe(keep.package_id);
    const [row] = await w.db((db) => db.select().from(packageFiles).where(eq(packageFiles.id, drop.id)));
    const url = `/projects/${project.id}/packages/${drop.package_id}/package_files/${drop.id}`;
    const res = await w.as(dev).delete(url);
    expect([res.status, await res.text()]).toEqual([204, ""]);
    expect(await (env as unknown as { BLOBS: R2Bucket }).BLOBS.get(row.fileStore)).toBeNull();
    const files = (await (await w.as(dev).get(`/projects/${project.id}/packages/${drop.package_id}/package_files`)).json()) as File[];
    expect(files.map((f) => f.file_name)).toEqual(["keep.bin"]);
    expect(await statusAndBody(await w.as(dev).delete(url))).toEqual([404, { message: "404 Not Found" }]);
    // The last file goes too; the package stays (GitLab's package file delete never deletes the package).
    expect((await w.as(dev).delete(`/projects/${project.id}/packages/${keep.package_id}/package_files/${keep.id}`)).status).toBe(204);
    expect((await w.as(dev).get(`/projects/${project.id}/packages/${keep.package_id}`)).status).toBe(200);
  });

  it("404 for an unknown package, a file of another package, another project's package; 400 for a non-integer id", async () => {
    const { w, dev, project } = await setup();
    const a = (await (await rawPut(dev.token, `/projects/${project.id}/packages/generic/a/1.0.0/a.bin?select=package_file`, "a")).json()) as File;
    const b = (await (await rawPut(dev.token, `/projects/${project.id}/packages/generic/b/1.0.0/b.bin?select=package_file`, "b")).json()) as File;
    const api = w.as(dev);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/packages/${a.package_id}/package_files/${b.id}`))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/packages/999999999/package_files/${a.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/packages/${a.package_id}/package_files/99999999999`))).toEqual([404, { message: "404 Not Found" }]);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/packages/${a.package_id}/package_files/abc`))).toEqual([400, { error: "package_file_id is invalid" }]);
    const other = await w.project({ developers: [dev] });
    expect(await statusAndBody(await api.delete(`/projects/${other.id}/packages/${a.package_id}/package_files/${a.id}`))).toEqual([404, { message: "404 Not found" }]);
    // Still there.
    expect(((await (await api.get(`/projects/${project.id}/packages/${a.package_id}/package_files`)).json()) as File[]).map((f) => f.id)).toEqual([a.id]);
  });

  it("403 for reporters of a public project (before the package is looked up), 401 anonymous, 404 for non-members of a private one", async () => {
    const w = await world();
    const dev = await w.user();
    const reporter = await w.user();
    const pub = await w.project({ developers: [dev], reporters: [reporter], visibility: "public" });
    const file = (await (await rawPut(dev.token, `/projects/${pub.id}/packages/generic/p/1.0.0/p.bin?select=package_file`, "p")).json()) as File;
    const url = `/projects/${pub.id}/packages/${file.package_id}/package_files/${file.id}`;
    expect(await statusAndBody(await w.as(reporter).delete(url))).toEqual([403, { message: "403 Forbidden" }]);
    // Anonymous writes stop at the router's `authenticate_non_get!` (kernel/router.ts, A4).
    expect(await statusAndBody(await w.anonymous.delete(url))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(reporter).delete(`/projects/${pub.id}/packages/999999999/package_files/1`))).toEqual([403, { message: "403 Forbidden" }]);
    const { project } = await setup();
    expect(await statusAndBody(await w.as(w.stranger).delete(`/projects/${project.id}/packages/1/package_files/1`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await w.as(dev).delete(url)).status).toBe(204);
  });
});

// ---------------------------------------------------------------------------------------------
// Packages published by CI jobs (packages_build_infos): a job token publishes, the package records
// the job's pipeline.

type PkgPipeline = { id: number; iid: number; project_id: number; sha: string; ref: string; status: string; web_url: string; user: { id: number; username: string } | null };

async function jobPut(path: string, headers: Record<string, string>, body: string): Promise<Response> {
  return worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { method: "PUT", headers, body }));
}

/** The document `npm publish` PUTs for one version with its tarball. */
function npmDocument(name: string, version: string, tarball: string) {
  return JSON.stringify({
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: { [version]: { name, version, dist: { shasum: "x", tarball: `http://edgeforge.test/${name}-${version}.tgz` } } },
    _attachments: { [`${name}-${version}.tgz`]: { content_type: "application/octet-stream", data: btoa(tarball), length: tarball.length } },
  });
}

describe("packages published with a CI job token", () => {
  it("records the job's pipeline (generic with JOB-TOKEN, npm with a Bearer job token): `pipeline`, `pipelines` and GET …/pipelines", async () => {
    const w = await world();
    const { api, project, owner } = await ciProject(w, "job:\n  script: echo\n");
    const runner = await projectRunner(api, project.id);
    const first = await createPipeline(api, project.id);
    const job = await claim(runner.token);
    expect(job.job_info.pipeline_id).toBe(first.id);

    expect((await jobPut(`/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`, { "JOB-TOKEN": job.token }, "bytes")).status).toBe(201);
    const npmName = "@ci/lib";
    const npmRes = await jobPut(`/projects/${project.id}/packages/npm/${encodeURIComponent(npmName)}`, { Authorization: `Bearer ${job.token}`, "Content-Type": "application/json" }, npmDocument(npmName, "1.0.0", "tgz"));
    expect(npmRes.status).toBe(200);
    // Basic `gitlab-ci-token:<token>` works too (a second file of the generic package, same pipeline once).
    expect((await jobPut(`/projects/${project.id}/packages/generic/tool/1.0.0/tool2.bin`, { Authorization: `Basic ${btoa(`gitlab-ci-token:${job.token}`)}` }, "more")).status).toBe(201);

    const list = (await (await api.get(`/projects/${project.id}/packages?order_by=name`)).json()) as (Pkg & { pipeline?: PkgPipeline; pipelines?: PkgPipeline[] })[];
    expect(list.map((p) => p.name)).toEqual(["@ci/lib", "tool"]);
    for (const pkg of list) {
      expect(pkg.pipeline).toMatchObject({ id: first.id, project_id: project.id, ref: "main", user: { id: owner.id, username: owner.username } });
      expect(pkg.pipeline!.web_url).toMatch(new RegExp(`/${project.fullPath}/-/pipelines/${first.id}$`));
      expect(pkg.pipelines!.map((p) => p.id)).toEqual([first.id]);
    }

    // A second pipeline's job publishes the same generic package: newest first, `pipeline` the newest.
    expect((await finish(job, "success")).status).toBe(200);
    const second = await createPipeline(api, project.id);
    const job2 = await claim(runner.token);
    expect((await jobPut(`/projects/${project.id}/packages/generic/tool/1.0.0/tool3.bin`, { "JOB-TOKEN": job2.token }, "again")).status).toBe(201);
    const tool = list.find((p) => p.name === "tool")!;
    const one = (await (await api.get(`/projects/${project.id}/packages/${tool.id}`)).json()) as Pkg & { pipeline: PkgPipeline; pipelines: PkgPipeline[] };
    expect(one.pipeline.id).toBe(second.id);
    expect(one.pipelines.map((p) => p.id)).toEqual([second.id, first.id]);

    const res = await api.get(`/projects/${project.id}/packages/${tool.id}/pipelines?per_page=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("2");
    const page = (await res.json()) as PkgPipeline[];
    expect(page).toEqual([
      {
        id: second.id,
        iid: second.iid,
        project_id: project.id,
        sha: second.sha,
        ref: "main",
        status: expect.any(String),
        source: "api",
        created_at: expect.any(String),
        updated_at: expect.any(String),
        web_url: expect.stringMatching(new RegExp(`/${project.fullPath}/-/pipelines/${second.id}$`)),
        user: expect.objectContaining({ id: owner.id, username: owner.username }),
      },
    ]);
  });

  it("refuses a finished job's token or an unknown one (401), and job tokens outside the package registries", async () => {
    const w = await world();
    const { api, project } = await ciProject(w, "job:\n  script: echo\n");
    const runner = await projectRunner(api, project.id);
    await createPipeline(api, project.id);
    const job = await claim(runner.token);
    // Elsewhere a job token is no credential (GitLab's `job_token_allowed` routes only).
    expect((await worker.fetch(new Request(`http://edgeforge.test/api/v4/projects/${project.id}`, { headers: { Authorization: `Bearer ${job.token}` } }))).status).toBe(401);
    expect(await statusAndBody(await jobPut(`/projects/${project.id}/packages/generic/tool/1.0.0/a.bin`, { "JOB-TOKEN": "glcbt-nope" }, "x"))).toEqual([401, { message: "401 Unauthorized" }]);
    expect((await finish(job, "success")).status).toBe(200);
    expect((await jobPut(`/projects/${project.id}/packages/generic/tool/1.0.0/a.bin`, { "JOB-TOKEN": job.token }, "x")).status).toBe(401);
    expect((await jobPut(`/projects/${project.id}/packages/npm/x`, { Authorization: `Bearer ${job.token}`, "Content-Type": "application/json" }, npmDocument("x", "1.0.0", "t"))).status).toBe(401);
  });
});

describe("GET /projects/:id/packages/:package_id/pipelines", () => {
  it("is empty for a package published with a personal access token (no `pipeline` key either); 404 for what the caller cannot read", async () => {
    const { dev, reporter, project, w } = await setup();
    expect((await rawPut(dev.token, `/projects/${project.id}/packages/generic/plain/1.0.0/p.bin`, "p")).status).toBe(201);
    const [pkg] = (await (await w.as(reporter).get(`/projects/${project.id}/packages`)).json()) as Record<string, unknown>[];
    expect(pkg).not.toHaveProperty("pipeline");
    expect(pkg).not.toHaveProperty("pipelines");
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/packages/${pkg.id}/pipelines`))).toEqual([200, []]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/packages/2147483647/pipelines`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/packages/abc/pipelines`))).toEqual([400, { error: "package_id is invalid" }]);
    const stranger = await w.user();
    expect(await statusAndBody(await w.as(stranger).get(`/projects/${project.id}/packages/${pkg.id}/pipelines`))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
