import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { basic, pushImage, registryToken } from "./support";

type Repo = { id: number; name: string; path: string; project_id: number; location: string; tags_count?: number; tags?: { name: string; path: string; location: string }[]; delete_api_path?: string; size?: number };

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const dev = await w.user();
  const reporter = await w.user();
  const group = await w.group();
  const project = await w.project({ group, maintainers: [maintainer], developers: [dev], reporters: [reporter] });
  const image = project.fullPath.toLowerCase();
  const token = await registryToken(basic(dev.token), `repository:${image}:pull,push`, `repository:${image}/app:pull,push`);
  const v1 = await pushImage(image, token, "v1", "one");
  await pushImage(image, token, "v2", "two");
  await pushImage(`${image}/app`, token, "latest", "three");
  return { w, maintainer, dev, reporter, group, project, image, v1 };
}

describe("GET /projects/:id/registry/repositories", () => {
  it("lists the project's repositories with tags and tags_count on request", async () => {
    const { w, maintainer, reporter, project, image } = await setup();
    const res = await w.as(reporter).get(`/projects/${project.id}/registry/repositories`, { query: { tags: true, tags_count: true } });
    expect(res.status).toBe(200);
    const repos = (await res.json()) as Repo[];
    expect(repos).toMatchObject([
      { name: "", path: image, project_id: project.id, location: `edgeforge.test/${image}`, tags_count: 2, tags: [{ name: "v1", path: `${image}:v1`, location: `edgeforge.test/${image}:v1` }, { name: "v2" }] },
      { name: "app", path: `${image}/app`, tags_count: 1 },
    ]);
    expect(repos[0].delete_api_path).toBeUndefined();
    const plain = (await (await w.as(maintainer).get(`/projects/${project.id}/registry/repositories`, { query: { per_page: 1 } })).json()) as Repo[];
    expect(plain).toHaveLength(1);
    expect(plain[0].tags).toBeUndefined();
    expect(plain[0].delete_api_path).toBe(`http://edgeforge.test/api/v4/projects/${project.id}/registry/repositories/${plain[0].id}`);
  });

  it("hides the registry from strangers (404) and guests (403)", async () => {
    const { w, project } = await setup();
    const stranger = await w.user();
    expect(await statusAndBody(await w.as(stranger).get(`/projects/${project.id}/registry/repositories`))).toEqual([404, { message: "404 Project Not Found" }]);
    const guest = await w.user();
    await w.addMembers("Project", project.id, { guests: [guest] });
    expect(await statusAndBody(await w.as(guest).get(`/projects/${project.id}/registry/repositories`))).toEqual([403, { message: "403 Forbidden" }]);
  });
});

describe("GET /groups/:id/registry/repositories", () => {
  it("lists the repositories of the group's projects", async () => {
    const { w, reporter, group, image } = await setup();
    await w.addMembers("Namespace", group.id, { reporters: [reporter] });
    const repos = (await (await w.as(reporter).get(`/groups/${group.id}/registry/repositories`)).json()) as Repo[];
    expect(repos.map((r) => r.path)).toEqual([image, `${image}/app`]);
  });
});

describe("GET /registry/repositories/:id", () => {
  it("answers one repository with its size; unknown or unreadable is 404", async () => {
    const { w, reporter, project } = await setup();
    const [repo] = (await (await w.as(reporter).get(`/projects/${project.id}/registry/repositories`)).json()) as Repo[];
    const one = (await (await w.as(reporter).get(`/registry/repositories/${repo.id}`, { query: { size: true, tags_count: true } })).json()) as Repo;
    expect(one).toMatchObject({ id: repo.id, tags_count: 2 });
    expect(one.size).toBeGreaterThan(0);
    const stranger = await w.user();
    expect(await statusAndBody(await w.as(stranger).get(`/registry/repositories/${repo.id}`))).toEqual([404, { message: "404 Repository Not Found" }]);
  });
});

describe("tags", () => {
  it("lists, details and deletes a tag", async () => {
    const { w, dev, reporter, project, image, v1 } = await setup();
    const [repo] = (await (await w.as(reporter).get(`/projects/${project.id}/registry/repositories`)).json()) as Repo[];
    const tags = await w.as(reporter).get(`/projects/${project.id}/registry/repositories/${repo.id}/tags`);
    expect(await tags.json()).toEqual([
      { name: "v1", path: `${image}:v1`, location: `edgeforge.test/${image}:v1` },
      { name: "v2", path: `${image}:v2`, location: `edgeforge.test/${image}:v2` },
    ]);
    const detail = (await (await w.as(reporter).get(`/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`)).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ name: "v1", digest: v1.digest, revision: v1.configDigest.slice(7), short_revision: v1.configDigest.slice(7, 16) });
    expect(await statusAndBody(await w.as(reporter).get(`/projects/${project.id}/registry/repositories/${repo.id}/tags/nope`))).toEqual([404, { message: "404 Tag Not Found" }]);
    expect((await w.as(reporter).delete(`/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`)).status).toBe(403);
    expect((await w.as(dev).delete(`/projects/${project.id}/registry/repositories/${repo.id}/tags/v1`)).status).toBe(200);
    const left = (await (await w.as(reporter).get(`/projects/${project.id}/registry/repositories/${repo.id}/tags`)).json()) as { name: string }[];
    expect(left.map((t) => t.name)).toEqual(["v2"]);
  });

  it("deletes in bulk by regex, keeping name_regex_keep and keep_n; maintainers only", async () => {
    const { w, dev, maintainer, project, image } = await setup();
    const token = await registryToken(basic(dev.token), `repository:${image}:pull,push`);
    await pushImage(image, token, "v3", "three");
    const [repo] = (await (await w.as(maintainer).get(`/projects/${project.id}/registry/repositories`)).json()) as Repo[];
    const path = `/projects/${project.id}/registry/repositories/${repo.id}/tags`;
    expect(await statusAndBody(await w.as(maintainer).delete(path))).toEqual([400, { error: "name_regex, name_regex_delete are missing, at least one parameter must be provided" }]);
    expect(await statusAndBody(await w.as(maintainer).delete(path, { query: { name_regex_delete: "(" } }))).toEqual([400, { error: "name_regex_delete is an invalid regexp" }]);
    expect(await statusAndBody(await w.as(maintainer).delete(path, { query: { name_regex_delete: "(v+)+x" } }))).toEqual([400, { error: "name_regex_delete is an invalid regexp" }]);
    expect((await w.as(dev).delete(path, { query: { name_regex_delete: ".*" } })).status).toBe(403);
    const res = await w.as(maintainer).delete(path, { query: { name_regex_delete: "v.*", name_regex_keep: "v1", keep_n: 1 } });
    expect(res.status).toBe(202);
    const left = (await (await w.as(maintainer).get(path)).json()) as { name: string }[];
    expect(left.map((t) => t.name)).toEqual(["v1", "v3"]);
  });
});

describe("DELETE /projects/:id/registry/repositories/:repository_id", () => {
  it("deletes the repository and its tags for maintainers", async () => {
    const { w, dev, maintainer, project } = await setup();
    const repos = (await (await w.as(maintainer).get(`/projects/${project.id}/registry/repositories`)).json()) as Repo[];
    expect((await w.as(dev).delete(`/projects/${project.id}/registry/repositories/${repos[1].id}`)).status).toBe(403);
    expect((await w.as(maintainer).delete(`/projects/${project.id}/registry/repositories/${repos[1].id}`)).status).toBe(202);
    const after = (await (await w.as(maintainer).get(`/projects/${project.id}/registry/repositories`)).json()) as Repo[];
    expect(after.map((r) => r.id)).toEqual([repos[0].id]);
    expect(await statusAndBody(await w.as(maintainer).delete(`/projects/${project.id}/registry/repositories/${repos[1].id}`))).toEqual([404, { message: "404 Repository Not Found" }]);
  });
});
