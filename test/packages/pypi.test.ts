import { describe, expect, it } from "vitest";
import { statusAndBody, worker } from "../helpers/client";
import { world, type TestUser } from "../helpers/world";

async function sha256(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const basic = (token: string, login = "__token__") => ({ Authorization: `Basic ${btoa(`${login}:${token}`)}` });

/** What twine sends: multipart with the file as `content` and the core metadata. */
async function upload(projectId: number, headers: Record<string, string>, fields: Record<string, string>, file: { name: string; text: string }) {
  const form = new FormData();
  form.set(":action", "file_upload");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set("content", new File([file.text], file.name));
  return worker.fetch(new Request(`http://edgeforge.test/api/v4/projects/${projectId}/packages/pypi`, { method: "POST", headers, body: form }));
}

const get = (path: string, headers: Record<string, string> = {}) => worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { headers }));

async function setup(visibility: "private" | "public" = "private") {
  const w = await world();
  const dev = await w.user();
  const reporter = await w.user();
  const group = await w.group({ visibility });
  const project = await w.project({ group, visibility, developers: [dev], reporters: [reporter] });
  return { w, dev, reporter, group, project };
}

async function publish(projectId: number, dev: TestUser, name = "Hello_World", version = "1.0.0", fileName = "hello_world-1.0.0.tar.gz", text = "sdist bytes") {
  const res = await upload(projectId, basic(dev.token), { name, version, requires_python: ">=3.7", sha256_digest: await sha256(text) }, { name: fileName, text });
  expect(await statusAndBody(res)).toEqual([201, { message: "201 Created" }]);
}

describe("POST /projects/:id/packages/pypi", () => {
  it("keeps the file with its digests and lists the package", async () => {
    const { w, dev, project } = await setup();
    await publish(project.id, dev);
    const list = (await (await w.as(dev).get(`/projects/${project.id}/packages`, { query: { package_type: "pypi" } })).json()) as { name: string; version: string; package_type: string; id: number }[];
    expect(list).toMatchObject([{ name: "Hello_World", version: "1.0.0", package_type: "pypi" }]);
    const files = (await (await w.as(dev).get(`/projects/${project.id}/packages/${list[0].id}/package_files`)).json()) as { file_name: string; file_sha256: string }[];
    expect(files).toMatchObject([{ file_name: "hello_world-1.0.0.tar.gz", file_sha256: await sha256("sdist bytes") }]);
  });

  it("takes a wheel for the same version, refuses the same file name twice", async () => {
    const { dev, project } = await setup();
    await publish(project.id, dev);
    await publish(project.id, dev, "Hello_World", "1.0.0", "hello_world-1.0.0-py3-none-any.whl", "wheel bytes");
    const again = await upload(project.id, basic(dev.token), { name: "Hello_World", version: "1.0.0" }, { name: "hello_world-1.0.0.tar.gz", text: "other" });
    expect(await statusAndBody(again)).toEqual([400, { message: "Validation failed: File name has already been taken" }]);
  });

  it("answers 400 for a bad name, version, digest, or missing fields", async () => {
    const { dev, project } = await setup();
    const bad = (fields: Record<string, string>) => upload(project.id, basic(dev.token), fields, { name: "x-1.0.tar.gz", text: "x" });
    expect(await statusAndBody(await bad({ name: "-bad-", version: "1.0" }))).toEqual([400, { message: "Validation failed: Name is invalid" }]);
    expect(await statusAndBody(await bad({ name: "ok", version: "one" }))).toEqual([400, { message: "Validation failed: Version is invalid" }]);
    expect(await statusAndBody(await bad({ name: "ok", version: "1.0", sha256_digest: "zz" }))).toEqual([400, { error: "sha256_digest is invalid" }]);
    expect(await statusAndBody(await bad({ name: "ok", version: "1.0", sha256_digest: "0".repeat(64) }))).toEqual([400, { message: "400 Bad request - sha256_digest does not match the file" }]);
    expect(await statusAndBody(await bad({ name: "ok" }))).toEqual([400, { error: "version is missing" }]);
    const none = await get(`/projects/${project.id}/packages/pypi/simple/ok`, basic(dev.token));
    expect(none.status).toBe(404);
  });

  it("answers 401 anonymously, 403 for reporters, 404 for strangers and bad tokens 401", async () => {
    const { w, reporter, project } = await setup();
    const stranger = await w.user();
    const file = { name: "a-1.0.tar.gz", text: "a" };
    expect((await upload(project.id, {}, { name: "a", version: "1.0" }, file)).status).toBe(401);
    expect(await statusAndBody(await upload(project.id, basic(reporter.token), { name: "a", version: "1.0" }, file))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await upload(project.id, basic(stranger.token), { name: "a", version: "1.0" }, file))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await upload(project.id, basic("glpat-nope"), { name: "a", version: "1.0" }, file)).status).toBe(401);
  });
});

describe("GET /projects/:id/packages/pypi/simple/*package_name", () => {
  it("lists every file with #sha256= and data-requires-python, by normalized name", async () => {
    const { dev, reporter, project } = await setup();
    await publish(project.id, dev);
    await publish(project.id, dev, "Hello_World", "1.1.0", "hello_world-1.1.0.tar.gz", "newer");
    const res = await get(`/projects/${project.id}/packages/pypi/simple/hello-world`, basic(reporter.token, "anyone"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const body = await res.text();
    const a = await sha256("sdist bytes");
    expect(body).toContain("<title>Links for Hello_World</title>");
    expect(body).toContain(
      `<a href="http://edgeforge.test/api/v4/projects/${project.id}/packages/pypi/files/${a}/hello_world-1.0.0.tar.gz#sha256=${a}" data-requires-python="&gt;=3.7">hello_world-1.0.0.tar.gz</a>`,
    );
    expect(body).toContain("hello_world-1.1.0.tar.gz</a>");
  });

  it("asks anonymous callers of a private project for Basic credentials, hides it from strangers", async () => {
    const { w, dev, project } = await setup();
    await publish(project.id, dev);
    const anonymous = await get(`/projects/${project.id}/packages/pypi/simple/hello-world`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="GitLab Packages Registry"');
    const stranger = await w.user();
    expect(await statusAndBody(await get(`/projects/${project.id}/packages/pypi/simple/hello-world`, basic(stranger.token)))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await get(`/projects/${project.id}/packages/pypi/simple/nothing`, basic(dev.token)))).toEqual([404, { message: "404 Package Not Found" }]);
  });

  it("serves public projects anonymously", async () => {
    const { dev, project } = await setup("public");
    await publish(project.id, dev);
    expect((await get(`/projects/${project.id}/packages/pypi/simple/Hello.World`)).status).toBe(200);
  });
});

describe("GET /projects/:id/packages/pypi/simple", () => {
  it("lists each package name once", async () => {
    const { dev, project } = await setup();
    await publish(project.id, dev);
    await publish(project.id, dev, "Hello_World", "2.0", "hello_world-2.0.tar.gz", "two");
    await publish(project.id, dev, "other", "0.1", "other-0.1.tar.gz", "o");
    const body = await (await get(`/projects/${project.id}/packages/pypi/simple`, basic(dev.token))).text();
    expect(body).toContain(`<title>Links for ${project.name}</title>`);
    expect(body.match(/<a /g)).toHaveLength(2);
    expect(body).toContain(`<a href="http://edgeforge.test/api/v4/projects/${project.id}/packages/pypi/simple/hello-world" data-requires-python="&gt;=3.7">Hello_World</a>`);
  });
});

describe("GET /projects/:id/packages/pypi/files/:sha256/*file_identifier", () => {
  it("downloads the file by digest and name; a wrong digest is 404", async () => {
    const { dev, reporter, project } = await setup();
    await publish(project.id, dev);
    const digest = await sha256("sdist bytes");
    const res = await get(`/projects/${project.id}/packages/pypi/files/${digest}/hello_world-1.0.0.tar.gz`, basic(reporter.token));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("sdist bytes");
    const wrong = await get(`/projects/${project.id}/packages/pypi/files/${"0".repeat(64)}/hello_world-1.0.0.tar.gz`, basic(reporter.token));
    expect(await statusAndBody(wrong)).toEqual([404, { message: "404 Package Not Found" }]);
  });
});

describe("GET /groups/:id/-/packages/pypi/simple/*package_name", () => {
  it("finds packages of the group's projects the caller reads", async () => {
    const { w, dev, reporter, group, project } = await setup();
    await publish(project.id, dev);
    const digest = await sha256("sdist bytes");
    const body = await (await get(`/groups/${group.id}/-/packages/pypi/simple/hello-world`, basic(reporter.token))).text();
    expect(body).toContain(`/api/v4/groups/${group.id}/-/packages/pypi/files/${digest}/hello_world-1.0.0.tar.gz#sha256=${digest}`);
    const file = await get(`/groups/${group.id}/-/packages/pypi/files/${digest}/hello_world-1.0.0.tar.gz`, basic(reporter.token));
    expect(await file.text()).toBe("sdist bytes");
    const index = await (await get(`/groups/${group.id}/-/packages/pypi/simple`, basic(reporter.token))).text();
    expect(index).toContain(`/api/v4/groups/${group.id}/-/packages/pypi/simple/hello-world`);
    // A member of the group who cannot read this project's packages sees none of them.
    const guest = await w.user();
    const other = await w.project({ group, guests: [guest] });
    expect(other.id).toBeGreaterThan(0);
    expect((await get(`/groups/${group.id}/-/packages/pypi/simple/hello-world`, basic(guest.token))).status).toBe(404);
  });
});
