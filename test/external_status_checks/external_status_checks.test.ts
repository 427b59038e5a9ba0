import { beforeAll, describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world, type World } from "../helpers/world";
import { protectBranch } from "../helpers/git";
import { type Json } from "../helpers/api";

let w: World;
beforeAll(async () => {
  w = await world();
});

async function fixture() {
  const [maintainer, developer] = await Promise.all([w.user(), w.user()]);
  const project = await w.project({ visibility: "public", maintainers: [maintainer], developers: [developer] });
  return { project, maintainer, developer, base: `/projects/${project.id}/external_status_checks` };
}

async function create(u: Parameters<World["as"]>[0], base: string, json: Json): Promise<Json> {
  const res = await w.as(u).post(base, { json });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

describe("POST /projects/:id/external_status_checks", () => {
  it("creates a check scoped to protected branches (201, GitLab's entity)", async () => {
    const { project, maintainer, base } = await fixture();
    const main = await protectBranch(w, project, "main");
    const res = await w.as(maintainer).post(base, { json: { name: "Compliance", external_url: "https://checks.example.com/hook?x=1", protected_branch_ids: `${main}` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: expect.any(Number),
      name: "Compliance",
      project_id: project.id,
      external_url: "https://checks.example.com/hook?x=1",
      protected_branches: [expect.objectContaining({ id: main, name: "main", push_access_levels: expect.any(Array), merge_access_levels: expect.any(Array) })],
    });
  });

  it("answers the model's errors (422) and GitLab's 400 for missing parameters", async () => {
    const { project, maintainer, base } = await fixture();
    const other = await fixture();
    const foreign = await protectBranch(w, other.project, "main");
    await create(maintainer, base, { name: "QA", external_url: "https://qa.example.com" });
    const api = w.as(maintainer);
    expect(await statusAndBody(await api.post(base, { json: { name: "QA", external_url: "https://qa2.example.com" } }))).toEqual([422, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await api.post(base, { json: { name: "QA 2", external_url: "https://qa.example.com" } }))).toEqual([
      422,
      { message: ["External url has already been taken"] },
    ]);
    expect(await statusAndBody(await api.post(base, { json: { name: " ", external_url: "ftp://qa.example.com" } }))).toEqual([
      422,
      { message: ["Name can't be blank", "External url is blocked: Only allowed schemes are http, https"] },
    ]);
    expect(await statusAndBody(await api.post(base, { json: { name: "B", external_url: "https://b.example.com", protected_branch_ids: [foreign] } }))).toEqual([
      422,
      { message: ["all protected branches must exist within the project"] },
    ]);
    expect(await statusAndBody(await api.post(base, { json: { name: "C", external_url: "https://c.example.com", protected_branch_ids: [2147483647] } }))).toEqual([
      404,
      { message: "404 Not found" },
    ]);
    expect(await statusAndBody(await api.post(base, { json: { name: "D" } }))).toEqual([400, { error: "external_url is missing" }]);
    expect(await statusAndBody(await api.post(base, { json: { name: "D", external_url: "https://d.example.com", protected_branch_ids: "x" } }))).toEqual([
      400,
      { error: "protected_branch_ids is invalid" },
    ]);
    // Local addresses are refused at delivery (per the instance setting), not when the check is saved.
    expect((await api.post(base, { json: { name: "Local", external_url: "http://127.0.0.1:9/check" } })).status).toBe(201);
    expect(project.id).toBeGreaterThan(0);
  });

  it("is 401 for anonymous callers and for developers (the services' `Not allowed`), 404 for a project they cannot see", async () => {
    const { base, developer } = await fixture();
    const json = { name: "QA", external_url: "https://qa.example.com" };
    expect(await statusAndBody(await w.anonymous.post(base, { json }))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).post(base, { json }))).toEqual([401, { message: ["Not allowed"] }]);
    const hidden = await w.project({ visibility: "private" });
    expect(await statusAndBody(await w.as(developer).post(`/projects/${hidden.id}/external_status_checks`, { json }))).toEqual([404, { message: "404 Project Not Found" }]);
  });
});

describe("GET /projects/:id/external_status_checks", () => {
  it("lists the project's checks to maintainers, paginated", async () => {
    const { maintainer, base } = await fixture();
    const a = await create(maintainer, base, { name: "A", external_url: "https://a.example.com" });
    const b = await create(maintainer, base, { name: "B", external_url: "https://b.example.com" });
    const res = await w.as(maintainer).get(base);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json[]).map((c) => c.id)).toEqual([a.id, b.id]);
    const page = await w.as(maintainer).get(`${base}?per_page=1&page=2`);
    expect(page.headers.get("x-total")).toBe("2");
    expect(((await page.json()) as Json[]).map((c) => c.id)).toEqual([b.id]);
    expect(await statusAndBody(await w.as(maintainer).get(`${base}?per_page=x`))).toEqual([400, { error: "per_page is invalid" }]);
  });

  it("is 401 for developers", async () => {
    const { base, developer } = await fixture();
    expect(await statusAndBody(await w.as(developer).get(base))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.anonymous.get(base))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("PUT /projects/:id/external_status_checks/:check_id", () => {
  it("changes what was sent; protected_branch_ids replace the scope", async () => {
    const { project, maintainer, base } = await fixture();
    const main = await protectBranch(w, project, "main");
    const check = await create(maintainer, base, { name: "QA", external_url: "https://qa.example.com", protected_branch_ids: [main] });
    const res = await w.as(maintainer).put(`${base}/${check.id}`, { json: { name: "QA 2", protected_branch_ids: [] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...check, name: "QA 2", protected_branches: [] });
    const url = await w.as(maintainer).put(`${base}/${check.id}`, { json: { external_url: "https://qa2.example.com" } });
    expect(await url.json()).toMatchObject({ name: "QA 2", external_url: "https://qa2.example.com" });
  });

  it("answers 404 for another project's check, 422 for a taken name, 401 for developers, 400 for a bad id", async () => {
    const { maintainer, developer, base } = await fixture();
    const other = await fixture();
    const foreign = await create(other.maintainer, other.base, { name: "X", external_url: "https://x.example.com" });
    await create(maintainer, base, { name: "A", external_url: "https://a.example.com" });
    const b = await create(maintainer, base, { name: "B", external_url: "https://b.example.com" });
    expect(await statusAndBody(await w.as(maintainer).put(`${base}/${foreign.id}`, { json: { name: "Y" } }))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(maintainer).put(`${base}/${b.id}`, { json: { name: "A" } }))).toEqual([422, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await w.as(developer).put(`${base}/${b.id}`, { json: { name: "Z" } }))).toEqual([401, { message: ["Not allowed"] }]);
    expect(await statusAndBody(await w.as(maintainer).put(`${base}/abc`, { json: { name: "Z" } }))).toEqual([400, { error: "check_id is invalid" }]);
  });
});

describe("/projects/:id/external_approval_rules (the spec's name of the same endpoints)", () => {
  it("lists, creates, updates and deletes the same rows as external_status_checks", async () => {
    const { project, maintainer, developer, base } = await fixture();
    const rules = `/projects/${project.id}/external_approval_rules`;
    const main = await protectBranch(w, project, "main");
    const api = w.as(maintainer);
    const created = await api.post(rules, { json: { name: "Gate", external_url: "https://gate.example.com", protected_branch_ids: [main] } });
    expect(created.status).toBe(201);
    const rule = (await created.json()) as Json;
    expect(rule).toMatchObject({ name: "Gate", project_id: project.id, protected_branches: [{ id: main, name: "main" }] });
    // One set of rows under both names.
    expect(await statusAndBody(await api.get(base))).toEqual([200, [rule]]);
    const viaCheck = await create(maintainer, base, { name: "Other", external_url: "https://other.example.com" });
    const listed = await api.get(`${rules}?per_page=1&page=2`);
    expect(listed.headers.get("x-total")).toBe("2");
    expect(await listed.json()).toEqual([viaCheck]);
    const updated = await api.put(`${rules}/${rule.id}`, { json: { name: "Gate 2", protected_branch_ids: [] } });
    expect(await statusAndBody(updated)).toEqual([200, { ...rule, name: "Gate 2", protected_branches: [] }]);
    expect(await statusAndBody(await api.put(`${rules}/${rule.id}`, { json: { name: "Other" } }))).toEqual([422, { message: ["Name has already been taken"] }]);
    expect(await statusAndBody(await api.put(`${rules}/abc`, { json: { name: "Z" } }))).toEqual([400, { error: "rule_id is invalid" }]);
    expect(await statusAndBody(await w.as(developer).get(rules))).toEqual([401, { message: "401 Unauthorized" }]);
    expect(await statusAndBody(await w.as(developer).delete(`${rules}/${rule.id}`))).toEqual([401, { message: ["Not allowed"] }]);
    expect((await api.delete(`${rules}/${rule.id}`)).status).toBe(204);
    expect(await statusAndBody(await api.delete(`${rules}/${rule.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await api.get(base))).toEqual([200, [viaCheck]]);
    expect(await statusAndBody(await w.as(developer).post(rules, { json: { name: "Q" } }))).toEqual([400, { error: "external_url is missing" }]);
  });
});

describe("DELETE /projects/:id/external_status_checks/:check_id", () => {
  it("deletes (204), then 404; developers get 401", async () => {
    const { maintainer, developer, base } = await fixture();
    const check = await create(maintainer, base, { name: "QA", external_url: "https://qa.example.com" });
    expect(await statusAndBody(await w.as(developer).delete(`${base}/${check.id}`))).toEqual([401, { message: ["Not allowed"] }]);
    const res = await w.as(maintainer).delete(`${base}/${check.id}`);
    expect(res.status).toBe(204);
    expect(await statusAndBody(await w.as(maintainer).delete(`${base}/${check.id}`))).toEqual([404, { message: "404 Not found" }]);
    expect(await statusAndBody(await w.as(maintainer).get(base))).toEqual([200, []]);
  });

  it("has no single GET (GitLab serves none)", async () => {
    const { maintainer, base } = await fixture();
    const check = await create(maintainer, base, { name: "QA", external_url: "https://qa.example.com" });
    expect((await w.as(maintainer).get(`${base}/${check.id}`)).status).toBe(404);
  });
});
