import { describe, expect, it } from "vitest";
import { BASE, client, worker } from "../helpers/client";
import { checkContract } from "../helpers/contract";
import { env } from "cloudflare:test";

const rootToken = () => (env as unknown as { ROOT_TOKEN: string }).ROOT_TOKEN;

const get = (path: string) => worker.fetch(new Request(`${BASE}${path}`));

describe("GET /api/v4/openapi.json", () => {
  it("is the OpenAPI 3.1 document of every route, served anonymously", async () => {
    const res = await get("/api/v4/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { tags?: string[] }>>; tags: { name: string }[] };
    expect(doc.openapi).toBe("3.1.0");
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(operations.length).toBeGreaterThan(650);
    expect(operations.every((op) => op.tags?.length === 1)).toBe(true);
    expect(doc.tags.map((t) => t.name)).toEqual(expect.arrayContaining(["projects", "issues", "merge_requests", "git_http"]));
    expect(doc.paths["/api/v4/version"].get).toMatchObject({
      responses: { "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Version" } } } } },
    });
  });

  it("is checked against every response the tests receive: a wrong schema fails", async () => {
    const res = await client(rootToken()).get("/version");
    expect(res.status).toBe(200);
    // The same response against a document whose Version lacks `revision` (closed objects: a field the
    // entity writes but the schema does not list is an error).
    const doc = (await (await get("/api/v4/openapi.json")).json()) as { components: { schemas: Record<string, { properties: object }> } };
    delete (doc.components.schemas.Version.properties as Record<string, unknown>).revision;
    const wrong = async () => new Response(JSON.stringify(doc));
    await expect(checkContract(res, wrong, "planted")).rejects.toThrow(/revision/);
  });
});

describe("GET /api/v4/docs", () => {
  it("is not built yet, and answers like an unknown route", async () => {
    const res = await get("/api/v4/docs");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "404 Not Found" });
  });
});
