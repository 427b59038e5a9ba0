import { describe, expect, it } from "vitest";
import { BASE, statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { integrationsPath, withIntegration, type Json } from "../helpers/alerts";

describe("POST /projects/:id/alert_management/http_integrations", () => {
  it("creates an integration with its URL and a 32-hex key: 201", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const res = await w.as(maintainer).post(integrationsPath(project.id), { json: { name: "Prod Grafana!", active: true } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(["id", "name", "active", "type", "url", "token", "payload_attribute_mappings", "created_at", "updated_at"]);
    expect(body).toMatchObject({ name: "Prod Grafana!", active: true, type: "http", payload_attribute_mappings: [] });
    expect(body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(body.url).toMatch(new RegExp(`^${BASE}/${project.fullPath}/-/alerts/notify/prod-grafana/[0-9a-f]{32}\\.json$`));
  });

  it("is inactive unless `active` is sent, and keeps a custom mapping", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const mappings = [{ field_name: "title", path: ["alert", "name"], type: "string" }];
    const res = await w.as(maintainer).post(integrationsPath(project.id), { json: { name: "x", payload_attribute_mappings: mappings } });
    expect(await res.json()).toMatchObject({ active: false, payload_attribute_mappings: mappings });
  });

  it("answers 400 for a missing or blank name and an unknown mapping field", async () => {
    const w = await world();
    const maintainer = await w.user();
    const project = await w.project({ maintainers: [maintainer] });
    const as = w.as(maintainer);
    expect(await statusAndBody(await as.post(integrationsPath(project.id), { json: {} }))).toEqual([400, { error: "name is missing" }]);
    expect(await statusAndBody(await as.post(integrationsPath(project.id), { json: { name: "  " } }))).toEqual([400, { message: { name: ["can't be blank"] } }]);
    expect(await statusAndBody(await as.post(integrationsPath(project.id), { json: { name: "x".repeat(256) } }))).toEqual([
      400,
      { message: { name: ["is too long (maximum is 255 characters)"] } },
    ]);
    const bad = await as.post(integrationsPath(project.id), { json: { name: "x", payload_attribute_mappings: [{ field_name: "nope", path: ["a"] }] } });
    expect(bad.status).toBe(400);
  });

  requiresAuthentication((w) => w.anonymous.post(integrationsPath(1), { json: { name: "x" } }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(integrationsPath(project.id), { json: { name: "x" } }));
  forbidsRoles(["guest", "reporter", "developer"], (w, project, user) => w.as(user).post(integrationsPath(project.id), { json: { name: "x" } }));
});

describe("GET /projects/:id/alert_management/http_integrations", () => {
  it("lists the project's integrations with their keys, oldest first", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    await w.as(maintainer).post(integrationsPath(project.id), { json: { name: "second" } });
    const list = (await (await w.as(maintainer).get(integrationsPath(project.id))).json()) as Json[];
    expect(list.map((i) => i.name)).toEqual(["Grafana alerts", "second"]);
    expect(list[0]).toEqual(integration);
    expect(await statusAndBody(await w.as(maintainer).get(integrationsPath(project.id, `/${integration.id}`)))).toEqual([200, integration]);
  });

  it("answers 404 Integration Not Found for another project's integration", async () => {
    const w = await world();
    const { integration } = await withIntegration(w);
    const other = await withIntegration(w);
    expect(await statusAndBody(await w.as(other.maintainer).get(integrationsPath(other.project.id, `/${integration.id}`)))).toEqual([
      404,
      { message: "404 Integration Not Found" },
    ]);
  });

  requiresAuthentication((w) => w.anonymous.get(integrationsPath(1)));
  hidesPrivateProject((w, project) => w.as(w.stranger).get(integrationsPath(project.id)));
  forbidsRoles(["developer"], (w, project, user) => w.as(user).get(integrationsPath(project.id)));
});

describe("PUT, DELETE and reset_token of /projects/:id/alert_management/http_integrations/:integration_id", () => {
  it("updates the name and the active flag; the URL follows the name", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    const res = await w.as(maintainer).put(integrationsPath(project.id, `/${integration.id}`), { json: { name: "Renamed", active: false } });
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ name: "Renamed", active: false, token: integration.token });
    expect(body.url).toContain("/-/alerts/notify/renamed/");
    expect(await statusAndBody(await w.as(maintainer).put(integrationsPath(project.id, `/${integration.id}`), { json: { name: "" } }))).toEqual([
      400,
      { message: { name: ["can't be blank"] } },
    ]);
  });

  it("reset_token gives a new key", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    const body = (await (await w.as(maintainer).post(integrationsPath(project.id, `/${integration.id}/reset_token`))).json()) as Json;
    expect(body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(body.token).not.toBe(integration.token);
  });

  it("DELETE answers 204, then 404", async () => {
    const w = await world();
    const { maintainer, project, integration } = await withIntegration(w);
    const res = await w.as(maintainer).delete(integrationsPath(project.id, `/${integration.id}`));
    expect(res.status).toBe(204);
    expect(await statusAndBody(await w.as(maintainer).delete(integrationsPath(project.id, `/${integration.id}`)))).toEqual([
      404,
      { message: "404 Integration Not Found" },
    ]);
  });

  forbidsRoles(["developer"], (w, project, user) => w.as(user).put(integrationsPath(project.id, "/1"), { json: { name: "x" } }));
});

describe("GET/PUT /projects/:id/alert_management/settings", () => {
  it("defaults to no incident, auto close on; PUT changes what is sent", async () => {
    const w = await world();
    const { maintainer, project } = await withIntegration(w);
    const path = `/projects/${project.id}/alert_management/settings`;
    expect(await statusAndBody(await w.as(maintainer).get(path))).toEqual([200, { create_issue: false, auto_close_incident: true, send_email: false }]);
    expect(await statusAndBody(await w.as(maintainer).put(path, { json: { create_issue: true } }))).toEqual([
      200,
      { create_issue: true, auto_close_incident: true, send_email: false },
    ]);
    expect(await statusAndBody(await w.as(maintainer).put(path, { json: { create_issue: "maybe" } }))).toEqual([400, { error: "create_issue is invalid" }]);
  });
  forbidsRoles(["developer"], (w, project, user) => w.as(user).get(`/projects/${project.id}/alert_management/settings`));
});
