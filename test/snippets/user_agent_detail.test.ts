import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { snippet, type Json } from "../helpers/noteables";

describe("GET /snippets/:id/user_agent_detail and /projects/:id/snippets/:snippet_id/user_agent_detail", () => {
  it("shows admins the user agent and address a snippet was created from", async () => {
    const w = await world();
    const author = await w.user();
    const project = await w.project({ reporters: [author] });
    const headers = { "User-Agent": "snippet-test/1.0", "X-Forwarded-For": "203.0.113.7, 10.0.0.1" };
    const personal = (await (await w.as(author).post("/snippets", { json: { title: "t", file_name: "a", content: "x" }, headers })).json()) as Json;
    const inProject = (await (
      await w.as(author).post(`/projects/${project.id}/snippets`, { json: { title: "t", visibility: "private", file_name: "a", content: "x" }, headers })
    ).json()) as Json;
    const expected = { user_agent: "snippet-test/1.0", ip_address: "203.0.113.7", akismet_submitted: false };
    expect(await statusAndBody(await w.root.get(`/snippets/${personal.id}/user_agent_detail`))).toEqual([200, expected]);
    expect(await statusAndBody(await w.root.get(`/projects/${project.id}/snippets/${inProject.id}/user_agent_detail`))).toEqual([200, expected]);
    expect(await statusAndBody(await w.as(author).get(`/snippets/${personal.id}/user_agent_detail`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(author).get(`/projects/${project.id}/snippets/${inProject.id}/user_agent_detail`))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    expect((await w.anonymous.get(`/snippets/${personal.id}/user_agent_detail`)).status).toBe(401);
    const legacy = await snippet(w, project);
    expect(await statusAndBody(await w.root.get(`/snippets/${legacy.id}/user_agent_detail`))).toEqual([404, { message: "404 UserAgentDetail Not Found" }]);
    expect(await statusAndBody(await w.root.get(`/snippets/2147483000/user_agent_detail`))).toEqual([404, { message: "404 Not found" }]);
  });
});
