import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import edgeforge from "../../functions/index";
import { BASE } from "../helpers/client";
import { world } from "../helpers/world";

/**
 * Through the Worker's real entry point (imported from source, so that the test sees
 * its console): a 4xx logs nothing, SQL least of all; a 5xx logs one line with the request id, the
 * route pattern, the SQLSTATE code and Postgres' message, and never the SQL text nor its parameter
 * values (tokens' digests, user content).
 */
type Env = { DATABASE_URL: string };
const call = (r: Request, over: Partial<Env> = {}) => edgeforge.fetch(r, { ...(env as object), ...over } as never, createExecutionContext());

/** Every line written to the console while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  for (const level of ["error", "warn", "log", "info"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  await run();
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe("log hygiene", () => {
  it("a 4xx logs nothing", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const headers = { "PRIVATE-TOKEN": owner.token, "Content-Type": "application/json" };
    const statuses: number[] = [];
    const lines = await logged(async () => {
      for (const req of [
        new Request(`${BASE}/api/v4/projects?search=%00`, { headers }),
        new Request(`${BASE}/api/v4/projects/${project.id}/labels`, { method: "POST", headers, body: JSON.stringify({ name: "l", color: "#fff000", priority: 2 ** 31 }) }),
        new Request(`${BASE}/api/v4/projects/${project.id}/issues`, { method: "POST", headers, body: "{" }),
        new Request(`${BASE}/api/v4/projects/${project.id}/issues/1/notes`, { method: "POST", headers: { ...headers, "Content-Type": "multipart/form-data; boundary=x" }, body: "{}" }),
        new Request(`${BASE}/api/v4/projects/${project.id}/members`, { method: "POST", headers, body: JSON.stringify({ user_id: owner.id, access_level: 30, expires_at: "2020-02-30" }) }),
        new Request(`${BASE}/api/v4/projects/2147483648`, { headers }),
        new Request(`${BASE}/api/v4/user`, { headers: { "PRIVATE-TOKEN": "not-a-token" } }),
      ]) {
        const res = await call(req);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    });
    expect(statuses).toEqual([400, 400, 400, 400, 400, 404, 401]);
    expect(lines).toEqual([]);
  });

  it("a 5xx logs the request id, the route, the SQLSTATE and the message, without the SQL or its values", async () => {
    // The same server, a database without Edgeforge's tables: a real Postgres error (42P01) in the
    // route's own query, with the path's value as its parameter.
    const url = new URL((env as unknown as Env).DATABASE_URL);
    url.pathname = "/postgres";
    let res: Response | undefined;
    const lines = await logged(async () => {
      res = await call(new Request(`${BASE}/api/v4/projects/secret-namespace%2Fsecret-project`, { headers: { "X-Request-Id": "hygiene-1" } }), { DATABASE_URL: url.toString() });
      await res.arrayBuffer();
    });
    expect(res!.status).toBe(500);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatch(/^\[hygiene-1\] GET \/api\/v4\/projects\/:id: database error SQLSTATE 42P01 relation "[a-z_]+" does not exist/);
    expect(line).not.toMatch(/secret|select|from|where|params/i);
  });
});
