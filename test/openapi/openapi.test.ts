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
  it("is the reference page over the document, loading Scalar's script from this Worker only", async () => {
    const res = await get("/api/v4/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self';/);
    const html = await res.text();
    expect(html).toContain('data-url="/api/v4/openapi.json"');
    expect(html).toContain('<script src="/api/v4/docs/scalar.js"></script>');
    // Nothing from elsewhere: no URL with a host in the page.
    expect(html).not.toMatch(/https?:\/\//);
    const configuration = JSON.parse(/data-configuration='([^']*)'/.exec(html)![1].replaceAll("&#39;", "'").replaceAll("&amp;", "&"));
    expect(configuration).toMatchObject({ withDefaultFonts: false, hideClientButton: true, agent: { disabled: true } });
  });

  it("is in the document, with the script's route", async () => {
    const doc = (await (await get("/api/v4/openapi.json")).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    expect(doc.paths["/api/v4/docs"].get.tags).toEqual(["openapi"]);
    expect(doc.paths["/api/v4/docs/scalar.js"].get.tags).toEqual(["openapi"]);
  });
});

describe("GET /api/v4/docs/scalar.js", () => {
  it("is @scalar/api-reference's standalone script, a static asset (ASSETS), with its ETag", async () => {
    const res = await get("/api/v4/docs/scalar.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    const etag = res.headers.get("etag");
    expect(etag).toBeTruthy();
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain("@scalar/api-reference@");
    const again = await worker.fetch(new Request(`${BASE}/api/v4/docs/scalar.js`, { headers: { "If-None-Match": etag! } }));
    expect(again.status).toBe(304);
  });

  it("leaves other paths under /docs to the router: an unknown route", async () => {
    const res = await get("/api/v4/docs/other.js");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "404 Not Found" });
  });
});
