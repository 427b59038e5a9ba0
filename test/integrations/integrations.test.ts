import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { forbidsRoles, hidesPrivateProject } from "../helpers/shared";
import { world } from "../helpers/world";

async function setup() {
  const w = await world();
  const maintainer = await w.user();
  const project = await w.project({ maintainers: [maintainer] });
  return { w, maintainer, project, api: w.as(maintainer) };
}

describe("PUT /projects/:id/integrations/:slug", () => {
  it("creates an active integration; secrets are never returned; GitLab's slug is an alias", async () => {
    const { api, project } = await setup();
    const res = await api.put(`/projects/${project.id}/integrations/rtc-chat-a`, {
      json: { webhook: "https://chat.example.com/hook/secret", notify_only_broken_pipelines: true, branches_to_be_notified: "all", note_events: false },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      id: expect.any(Number),
      title: "Real-time chat",
      slug: "rtc-chat-a",
      active: true,
      push_events: true,
      note_events: false,
      properties: { notify_only_broken_pipelines: true, branches_to_be_notified: "all" },
    });
    expect(JSON.stringify(body)).not.toContain("secret");
    const viaAlias = await api.get(`/projects/${project.id}/services/discord`);
    expect(await viaAlias.json()).toEqual(body);
  });

  it("answers 400 for missing required fields and invalid values, 404 for an unknown slug", async () => {
    const { api, project } = await setup();
    expect(await statusAndBody(await api.put(`/projects/${project.id}/integrations/build-server-a`, { json: { bamboo_url: "https://b.example.com" } }))).toEqual([
      400,
      { error: "build_key is missing, username is missing, password is missing" },
    ]);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/integrations/teams-chat-a`, { json: { webhook: "https://x", branches_to_be_notified: "some" } }))).toEqual([
      400,
      { error: "branches_to_be_notified does not have a valid value" },
    ]);
    expect(await statusAndBody(await api.put(`/projects/${project.id}/integrations/nope`, { json: {} }))).toEqual([404, { error: "404 Not Found" }]);
  });

  forbidsRoles(["developer"], (w, p, user) => w.as(user).put(`/projects/${p.id}/integrations/flow-chat-a`, { json: { token: "t" } }));
  hidesPrivateProject((w, p) => w.as(w.stranger).put(`/projects/${p.id}/integrations/flow-chat-a`, { json: { token: "t" } }));
});

describe("GET /projects/:id/integrations", () => {
  it("lists the active integrations only", async () => {
    const { api, project } = await setup();
    await api.put(`/projects/${project.id}/integrations/external-wiki`, { json: { external_wiki_url: "https://wiki.example.com" } });
    await api.put(`/projects/${project.id}/services/emails-on-push`, { json: { recipients: "a@example.com b@example.com" } });
    await api.delete(`/projects/${project.id}/integrations/external-wiki`);
    const res = await api.get(`/projects/${project.id}/integrations`);
    const list = (await res.json()) as { slug: string; active: boolean }[];
    expect(list.map((i) => [i.slug, i.active])).toEqual([["emails-on-push", true]]);
    expect(list[0]).not.toHaveProperty("properties");
  });

  forbidsRoles(["guest", "reporter", "developer"], (w, p, user) => w.as(user).get(`/projects/${p.id}/integrations`));
});

describe("GET and DELETE /projects/:id/integrations/:slug", () => {
  it("answers 404 Service Not Found before it is set, 204 on delete, then shows it inactive", async () => {
    const { api, project } = await setup();
    expect(await statusAndBody(await api.get(`/projects/${project.id}/integrations/flow-chat-a`))).toEqual([404, { message: "404 Service Not Found" }]);
    expect(await statusAndBody(await api.delete(`/projects/${project.id}/integrations/flow-chat-a`))).toEqual([404, { message: "404 Service Not Found" }]);
    await api.put(`/projects/${project.id}/integrations/flow-chat-a`, { json: { token: "t" } });
    const del = await api.delete(`/projects/${project.id}/integrations/flowdock`);
    expect(del.status).toBe(204);
    expect(await (await api.get(`/projects/${project.id}/integrations/flow-chat-a`)).json()).toMatchObject({ slug: "flow-chat-a", active: false, properties: {} });
  });
});
