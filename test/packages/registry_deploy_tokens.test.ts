// Deploy tokens on the npm and generic registries and on a group's PyPI registry (GitLab 15.4's
// `deploy_token_allowed` routes): `Deploy-Token` header, Bearer (npm's `_authToken`) or Basic
// `<username>:<token>`; `read_package_registry` reads, `write_package_registry` reads and writes.
import { describe, expect, it } from "vitest";
import { statusAndBody, worker } from "../helpers/client";
import { world } from "../helpers/world";

type Made = { id: number; username: string; token: string };
const basic = (t: Made) => ({ Authorization: `Basic ${btoa(`${t.username}:${t.token}`)}` });
const bearer = (t: Made) => ({ Authorization: `Bearer ${t.token}` });
const header = (t: Made) => ({ "Deploy-Token": t.token });
const call = (method: string, path: string, headers: Record<string, string> = {}, body?: BodyInit) =>
  worker.fetch(new Request(`http://edgeforge.test/api/v4${path}`, { method, headers, body }));

async function setup() {
  const w = await world();
  const owner = await w.user();
  const group = await w.group({ owners: [owner] });
  const subgroup = await w.group({ parent: group, owners: [owner] });
  const project = await w.project({ group: subgroup, owners: [owner] });
  const other = await w.project({ owners: [owner] });
  const token = async (path: string, scopes: string[]): Promise<Made> => {
    const res = await w.as(owner).post(`${path}/deploy_tokens`, { json: { name: "registries", scopes } });
    expect(res.status).toBe(201);
    return (await res.json()) as Made;
  };
  return { w, owner, group, subgroup, project, other, token };
}

function npmDocument(name: string, version: string, text: string) {
  return JSON.stringify({
    name,
    versions: { [version]: { name, version, dist: { tarball: "x" } } },
    "dist-tags": { latest: version },
    _attachments: { [`${name}-${version}.tgz`]: { data: btoa(text) } },
  });
}

describe("PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name with a deploy token", () => {
  it("uploads with write_package_registry in the Deploy-Token header or Basic; the package has no creator", async () => {
    const { w, owner, project, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    expect(await statusAndBody(await call("PUT", `/projects/${project.id}/packages/generic/tool/1.0.0/a.bin`, header(writer), "one"))).toEqual([201, { message: "201 Created" }]);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/tool/1.0.0/b.bin`, basic(writer), "two")).status).toBe(201);
    const [pkg] = (await (await w.as(owner).get(`/projects/${project.id}/packages`)).json()) as { id: number; name: string; pipelines?: unknown }[];
    expect(pkg).toMatchObject({ name: "tool", version: "1.0.0", package_type: "generic" });
    const got = await call("GET", `/projects/${project.id}/packages/generic/tool/1.0.0/b.bin`, header(writer));
    expect(got.status).toBe(200);
    expect(await got.text()).toBe("two");
  });

  it("403 with only read_package_registry, 404 on a project it does not reach, 401 revoked or unknown", async () => {
    const { w, owner, project, other, token } = await setup();
    const reader = await token(`/projects/${project.id}`, ["read_package_registry"]);
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    expect(await statusAndBody(await call("PUT", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, header(reader), "x"))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await call("PUT", `/projects/${other.id}/packages/generic/t/1.0.0/a.bin`, header(writer), "x"))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, { "Deploy-Token": "gldt-unknown" }, "x")).status).toBe(401);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, { Authorization: `Basic ${btoa(`someone:${writer.token}`)}` }, "x")).status).toBe(401);
    expect((await w.as(owner).delete(`/projects/${project.id}/deploy_tokens/${writer.id}`)).status).toBe(204);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, header(writer), "x")).status).toBe(401);
  });

  it("a token with only other scopes reaches nothing; an archived project takes no upload", async () => {
    const { w, owner, project, token } = await setup();
    const repo = await token(`/projects/${project.id}`, ["read_repository"]);
    expect(await statusAndBody(await call("GET", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, header(repo)))).toEqual([404, { message: "404 Project Not Found" }]);
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    expect((await w.as(owner).post(`/projects/${project.id}/archive`)).status).toBe(201);
    expect((await call("PUT", `/projects/${project.id}/packages/generic/t/1.0.0/a.bin`, header(writer), "x")).status).toBe(403);
  });
});

describe("npm registry with a deploy token (Bearer _authToken)", () => {
  it("publishes with a group's write_package_registry token and installs with a read token", async () => {
    const { group, project, other, token } = await setup();
    const writer = await token(`/groups/${group.id}`, ["write_package_registry"]);
    const reader = await token(`/projects/${project.id}`, ["read_package_registry"]);
    const name = "@scope/lib";
    const path = `/projects/${project.id}/packages/npm/${encodeURIComponent(name)}`;
    const put = await call("PUT", path, { ...bearer(writer), "Content-Type": "application/json" }, npmDocument(name, "1.0.0", "tarball"));
    expect(await statusAndBody(put)).toEqual([200, { ok: true }]);
    const doc = await call("GET", path, bearer(reader));
    expect(doc.status).toBe(200);
    const meta = (await doc.json()) as { versions: Record<string, { dist: { tarball: string } }> };
    const tarball = meta.versions["1.0.0"].dist.tarball.replace("http://edgeforge.test/api/v4", "");
    expect(await (await call("GET", tarball, bearer(reader))).text()).toBe("tarball");
    expect(await statusAndBody(await call("PUT", path, { ...bearer(reader), "Content-Type": "application/json" }, npmDocument(name, "2.0.0", "t")))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    // The group token does not reach a project outside the group.
    expect((await call("GET", `/projects/${other.id}/packages/npm/${encodeURIComponent(name)}`, bearer(writer))).status).toBe(404);
  });
});

describe("GET /groups/:id/-/packages/pypi/simple with a deploy token", () => {
  it("a group token reads the packages of every project below the group; a project token does not reach the group", async () => {
    const { group, subgroup, project, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry"]);
    const form = new FormData();
    form.set("name", "grouped");
    form.set("version", "1.0");
    form.set("content", new File(["sdist"], "grouped-1.0.tar.gz"));
    expect((await call("POST", `/projects/${project.id}/packages/pypi`, basic(writer), form)).status).toBe(201);
    const reader = await token(`/groups/${group.id}`, ["read_package_registry"]);
    for (const id of [group.id, subgroup.id]) {
      const index = await call("GET", `/groups/${id}/-/packages/pypi/simple`, basic(reader));
      expect(index.status).toBe(200);
      expect(await index.text()).toContain("grouped</a>");
      const files = await call("GET", `/groups/${id}/-/packages/pypi/simple/grouped`, basic(reader));
      expect(await files.text()).toContain("grouped-1.0.tar.gz</a>");
    }
    expect(await statusAndBody(await call("GET", `/groups/${group.id}/-/packages/pypi/simple`, basic(writer)))).toEqual([404, { message: "404 Group Not Found" }]);
    const subToken = await token(`/groups/${subgroup.id}`, ["read_package_registry"]);
    expect(await statusAndBody(await call("GET", `/groups/${group.id}/-/packages/pypi/simple`, basic(subToken)))).toEqual([404, { message: "404 Group Not Found" }]);
  });
});

describe("deploy tokens elsewhere in the API", () => {
  it("are unknown credentials: 401 by header, Bearer or PRIVATE-TOKEN", async () => {
    const { project, token } = await setup();
    const writer = await token(`/projects/${project.id}`, ["write_package_registry", "read_repository"]);
    expect((await call("GET", `/projects/${project.id}`, bearer(writer))).status).toBe(401);
    expect((await call("GET", `/projects/${project.id}/packages`, { "PRIVATE-TOKEN": writer.token })).status).toBe(401);
    // The Deploy-Token header is read only on the registries: elsewhere the caller is anonymous.
    expect((await call("GET", `/projects/${project.id}/packages`, header(writer))).status).toBe(404);
    expect((await call("GET", `/projects/${project.id}/releases`, bearer(writer))).status).toBe(401);
  });
});
