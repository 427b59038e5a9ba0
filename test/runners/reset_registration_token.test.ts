import { describe, expect, it } from "vitest";
import { request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

describe("POST /projects/:id/runners/reset_registration_token", () => {
  it("gives maintainers a new token that registers a project runner; the old one stops working", async () => {
    const w = await world();
    const dev = await w.user();
    const maintainer = await w.user();
    const project = await w.project({ developers: [dev], maintainers: [maintainer] });
    const first = await w.as(maintainer).post(`/projects/${project.id}/runners/reset_registration_token`);
    expect(first.status).toBe(201);
    const { token: old } = (await first.json()) as { token: string };
    const second = (await (await w.as(maintainer).post(`/projects/${project.id}/runners/reset_registration_token`)).json()) as { token: string; token_expires_at: null };
    expect(second).toEqual({ token: expect.stringMatching(/^GR1348941/), token_expires_at: null });
    expect(await statusAndBody(await request("POST", "/runners", null, { json: { token: old } }))).toEqual([403, { message: "403 Forbidden" }]);
    const registered = await request("POST", "/runners", null, { json: { token: second.token, description: "p" } });
    expect(registered.status).toBe(201);
    const runner = (await registered.json()) as { id: number };
    const shown = (await (await w.as(maintainer).get(`/runners/${runner.id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ runner_type: "project_type", projects: [expect.objectContaining({ id: project.id })] });
  });

  it("refuses developers (403), strangers of a private project (404) and anonymous callers (401)", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/runners/reset_registration_token`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${project.id}/runners/reset_registration_token`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await request("POST", `/projects/${project.id}/runners/reset_registration_token`, null)).status).toBe(401);
  });

  it("32 concurrent resets each answer 201 and leave exactly one valid token (no deadlock)", async () => {
    const w = await world();
    const project = await w.project();
    const responses = await Promise.all(Array.from({ length: 32 }, () => w.root.post(`/projects/${project.id}/runners/reset_registration_token`)));
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ token?: string; message?: string }>));
    expect(responses.map((r, i) => [r.status, r.status === 201 ? "" : JSON.stringify(bodies[i])])).toEqual(responses.map(() => [201, ""]));
    const tokens = bodies.map((b) => b.token!);
    expect(new Set(tokens).size).toBe(32);
    // Which token survives is the last commit's; exactly one of the 32 still registers a runner.
    const registrations = await Promise.all(tokens.map((token) => request("POST", "/runners", null, { json: { token, description: "race" } })));
    expect(registrations.map((r) => r.status).sort()).toEqual([201, ...Array(31).fill(403)]);
  });
});
