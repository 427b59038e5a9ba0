import { describe, expect, it } from "vitest";
import { BASE, statusAndBody } from "../helpers/client";
import { unique, world, type World } from "../helpers/world";
import type { Json } from "../helpers/api";

const name = (prefix = "topic") => unique(prefix);

async function createTopic(w: World, json: Json = {}): Promise<Json> {
  const res = await w.root.post("/topics", { json: { name: name(), title: "A topic", ...json } });
  if (res.status !== 201) throw new Error(`create topic: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

async function createProject(w: World, json: Json): Promise<Json> {
  const res = await w.root.post("/projects", { json: { name: unique("proj"), visibility: "public", ...json } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

async function topicByName(w: World, topicName: string): Promise<Json | undefined> {
  const res = await w.root.get("/topics", { query: { search: topicName } });
  return ((await res.json()) as Json[]).find((t) => t.name === topicName);
}

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], "logo.png", { type: "image/png" });

describe("GET /topics", () => {
  it("lists topics with the projects' counts, anonymously too, most used first", async () => {
    const w = await world();
    const tag = name("list");
    const [busy, idle] = [`${tag}-busy`, `${tag}-idle`];
    await createTopic(w, { name: idle });
    await createProject(w, { topics: [busy] });
    await createProject(w, { topics: [busy] });
    const res = await w.anonymous.get("/topics", { query: { search: tag } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    expect(body.map((t) => [t.name, t.total_projects_count])).toEqual([
      [busy, 2],
      [idle, 0],
    ]);
    expect(Object.keys(body[0]).sort()).toEqual(["avatar_url", "description", "id", "name", "title", "total_projects_count"]);
    expect(res.headers.get("x-total")).toBe("2");
  });

  it("keeps only topics without projects with `without_projects=true`", async () => {
    const w = await world();
    const tag = name("without");
    await createTopic(w, { name: `${tag}-idle` });
    await createProject(w, { topics: [`${tag}-busy`] });
    const res = await w.anonymous.get("/topics", { query: { search: tag, without_projects: true } });
    expect(((await res.json()) as Json[]).map((t) => t.name)).toEqual([`${tag}-idle`]);
  });

  it("paginates", async () => {
    const w = await world();
    const tag = name("pages");
    for (let i = 0; i < 3; i++) await createTopic(w, { name: `${tag}-${i}` });
    const res = await w.anonymous.get("/topics", { query: { search: tag, per_page: 2, page: 2 } });
    expect(((await res.json()) as Json[]).length).toBe(1);
    expect(res.headers.get("x-total")).toBe("3");
    expect(res.headers.get("x-total-pages")).toBe("2");
    expect(res.headers.get("x-prev-page")).toBe("1");
  });

  it("refuses a bad page", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/topics", { query: { page: 0 } }))).toEqual([400, { error: "page does not have a valid value" }]);
  });
});

describe("GET /topics/:id", () => {
  it("shows one topic; a missing one is 404 Not found; a non-integer id is invalid", async () => {
    const w = await world();
    const topic = await createTopic(w, { description: "About it" });
    const res = await w.anonymous.get(`/topics/${topic.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: topic.id, name: topic.name, title: "A topic", description: "About it", total_projects_count: 0, avatar_url: null });
    expect(await statusAndBody(await w.anonymous.get("/topics/999999999"))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.anonymous.get("/topics/abc"))).toEqual([400, { error: "id is invalid" }]);
  });
});

describe("POST /topics", () => {
  it("creates a topic as an administrator, with an avatar served at its URL", async () => {
    const w = await world();
    const topicName = name();
    const form = new FormData();
    form.set("name", topicName);
    form.set("title", "Title");
    form.set("avatar", png());
    const res = await w.root.post("/topics", { multipart: form });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ name: topicName, title: "Title", description: null, total_projects_count: 0 });
    expect(body.avatar_url).toBe(`${BASE}/uploads/-/system/projects/topic/avatar/${body.id}/logo.png`);
    const image = await w.anonymous.get(body.avatar_url);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
  });

  it("is for administrators: 401 anonymous, 403 others", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.anonymous.post("/topics", { json: { name: name(), title: "t" } }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(user).post("/topics", { json: { name: name(), title: "t" } }))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("answers GitLab's 400s", async () => {
    const w = await world();
    expect(await statusAndBody(await w.root.post("/topics", { json: {} }))).toEqual([400, { error: "name is missing, title is missing" }]);
    const existing = await createTopic(w);
    expect(await statusAndBody(await w.root.post("/topics", { json: { name: existing.name.toUpperCase(), title: "t" } }))).toEqual([
      400,
      { message: { name: ["has already been taken"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/topics", { json: { name: " ", title: "" } }))).toEqual([
      400,
      { message: { name: ["can't be blank"], title: ["can't be blank"] } },
    ]);
    expect(await statusAndBody(await w.root.post("/topics", { json: { name: "x".repeat(256), title: "t", description: "d".repeat(1025) } }))).toEqual([
      400,
      { message: { name: ["is too long (maximum is 255 characters)"], description: ["is too long (maximum is 1024 characters)"] } },
    ]);
    const form = new FormData();
    form.set("name", name());
    form.set("title", "t");
    form.set("avatar", new File(["x"], "notes.txt"));
    const [status, body] = await statusAndBody(await w.root.post("/topics", { multipart: form }));
    expect(status).toBe(400);
    expect((body as Json).message.avatar[0]).toMatch(/^file format is not supported/);
  });
});

describe("PUT /topics/:id", () => {
  it("renames a topic, and its projects show the new name", async () => {
    const w = await world();
    const old = name();
    const project = await createProject(w, { topics: [old] });
    const topic = await topicByName(w, old);
    const renamed = name("renamed");
    const res = await w.root.put(`/topics/${topic!.id}`, { json: { name: renamed, description: "new" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: topic!.id, name: renamed, description: "new", total_projects_count: 1 });
    const shown = (await (await w.root.get(`/projects/${project.id}`)).json()) as Json;
    expect(shown.topics).toEqual([renamed]);
    expect(shown.tag_list).toEqual([renamed]);
  });

  it("removes the avatar when `avatar` is sent empty", async () => {
    const w = await world();
    const form = new FormData();
    form.set("name", name());
    form.set("title", "t");
    form.set("avatar", png());
    const created = (await (await w.root.post("/topics", { multipart: form })).json()) as Json;
    expect(created.avatar_url).not.toBeNull();
    const res = await w.root.put(`/topics/${created.id}`, { json: { avatar: "" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).avatar_url).toBeNull();
    expect((await w.anonymous.get(created.avatar_url)).status).toBe(404);
  });

  it("refuses a name another topic has, non-administrators, and unknown topics", async () => {
    const w = await world();
    const [a, b] = [await createTopic(w), await createTopic(w)];
    expect(await statusAndBody(await w.root.put(`/topics/${a.id}`, { json: { name: b.name } }))).toEqual([400, { message: { name: ["has already been taken"] } }]);
    const user = await w.user();
    expect(await statusAndBody(await w.as(user).put(`/topics/${a.id}`, { json: { title: "x" } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.put(`/topics/999999999`, { json: { title: "x" } }))).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("DELETE /topics/:id", () => {
  it("deletes the topic and takes it off its projects", async () => {
    const w = await world();
    const [gone, kept] = [name(), name()];
    const project = await createProject(w, { topics: [gone, kept] });
    const topic = await topicByName(w, gone);
    const user = await w.user();
    expect(await statusAndBody(await w.as(user).delete(`/topics/${topic!.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    const res = await w.root.delete(`/topics/${topic!.id}`);
    expect(res.status).toBe(204);
    expect((await w.root.get(`/topics/${topic!.id}`)).status).toBe(404);
    expect(((await (await w.root.get(`/projects/${project.id}`)).json()) as Json).topics).toEqual([kept]);
  });
});

describe("POST /topics/merge", () => {
  it("moves the source's projects to the target and deletes the source", async () => {
    const w = await world();
    const [source, target] = [name("source"), name("target")];
    const both = await createProject(w, { topics: [source, target] });
    const onlySource = await createProject(w, { topics: [source, name("other")] });
    const [s, t] = [await topicByName(w, source), await topicByName(w, target)];
    const res = await w.root.post("/topics/merge", { json: { source_topic_id: s!.id, target_topic_id: t!.id } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: t!.id, name: target, total_projects_count: 2 });
    expect((await w.root.get(`/topics/${s!.id}`)).status).toBe(404);
    expect(((await (await w.root.get(`/projects/${both.id}`)).json()) as Json).topics).toEqual([target]);
    const moved = ((await (await w.root.get(`/projects/${onlySource.id}`)).json()) as Json).topics;
    expect(moved[0]).toBe(target);
  });

  it("refuses merging a topic into itself, missing topics, non-administrators and missing parameters", async () => {
    const w = await world();
    const t = await createTopic(w);
    expect(await statusAndBody(await w.root.post("/topics/merge", { json: { source_topic_id: t.id, target_topic_id: t.id } }))).toEqual([
      400,
      { message: "The source topic and the target topic are identical." },
    ]);
    expect(await statusAndBody(await w.root.post("/topics/merge", { json: { source_topic_id: t.id, target_topic_id: 999999999 } }))).toEqual([404, { message: "404 Not found" }]);
    const user = await w.user();
    expect(await statusAndBody(await w.as(user).post("/topics/merge", { json: { source_topic_id: t.id, target_topic_id: t.id } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.root.post("/topics/merge", { json: {} }))).toEqual([400, { error: "source_topic_id is missing, target_topic_id is missing" }]);
  });
});

describe("project topics (POST /projects, PUT /projects/:id, GET /projects?topic=)", () => {
  it("stores topics as topic rows, reusing an existing name case-insensitively, and keeps counts in step", async () => {
    const w = await world();
    const existing = name("Existing");
    await createTopic(w, { name: existing });
    const fresh = name("fresh");
    const project = await createProject(w, { topics: [existing.toLowerCase(), ` ${fresh} `, fresh.toUpperCase(), ""] });
    expect(project.topics).toEqual([existing, fresh]);
    expect(project.tag_list).toEqual([existing, fresh]);
    expect((await topicByName(w, existing))!.total_projects_count).toBe(1);
    const created = await topicByName(w, fresh);
    expect(created).toMatchObject({ title: fresh, total_projects_count: 1 });

    const res = await w.root.put(`/projects/${project.id}`, { json: { tag_list: [fresh] } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).topics).toEqual([fresh]);
    expect((await topicByName(w, existing))!.total_projects_count).toBe(0);
    // `topics` wins over the deprecated `tag_list`.
    const both = await w.root.put(`/projects/${project.id}`, { json: { topics: [existing], tag_list: [fresh] } });
    expect(((await both.json()) as Json).topics).toEqual([existing]);
    expect((await topicByName(w, fresh))!.total_projects_count).toBe(0);
  });

  it("filters projects by every topic given and by topic id", async () => {
    const w = await world();
    const [a, b] = [name("a"), name("b")];
    const ab = await createProject(w, { topics: [a, b] });
    const onlyA = await createProject(w, { topics: [a] });
    const listed = async (query: Json) => ((await (await w.root.get("/projects", { query })).json()) as Json[]).map((p) => p.id).sort((x, y) => x - y);
    expect(await listed({ topic: `${a},${b}` })).toEqual([ab.id]);
    expect(await listed({ topic: a })).toEqual([ab.id, onlyA.id].sort((x, y) => x - y));
    const topicA = await topicByName(w, a);
    expect(await listed({ topic_id: topicA!.id })).toEqual([ab.id, onlyA.id].sort((x, y) => x - y));
    expect(await listed({ topic_id: 999999999 })).toEqual([]);
  });
});
