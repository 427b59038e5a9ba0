import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParamKind } from "../../functions/kernel/params";
import { BASE, client, worker as edgeforge } from "../helpers/client";
import { world } from "../helpers/world";
import { fuzzFixtures, describeCase, requestOf, routesOf, sliceOf, sweepCases, type Case, type Fixtures, type Route } from "./fuzz-core";
import { PATH_EDGES, valueFor } from "./fuzz-values";

/**
 * Property: no input makes any built endpoint answer 5xx.
 *
 * The endpoints come from the real router (`app.routes`) and their parameters from the kernel's
 * registry (`declaredParams`, filled by `validateParams` as routes run), both read from the Worker
 * (`GET /-/fuzz-registry`, on with FUZZ_REGISTRY=1): a discovery pass calls every route once, then
 * fast-check derives values from each declared parameter's kind and sends them through the Worker's
 * entry point, in the query string, a JSON body, a form or a multipart body; then a fixed-seed slice of
 * the edge-value sweep (fuzz-core.ts `sweepCases`).
 *
 * CI runs a fixed seed and FUZZ_RUNS_CI cases; `npm run fuzz` (FUZZ_RUNS, FUZZ_SEED) runs more, and
 * `npm run sweep` the whole sweep against a started server (scripts/sweep.mjs).
 */
/**
 * The deployable bundle every other test calls (test/helpers/client.ts), not the app imported from
 * source: the registry is read from the Worker itself, and the fuzz meets the Worker that ships.
 */
const worker = (r: Request) => edgeforge.fetch(r);

type Registry = { routes: string[]; declared: Record<string, Record<string, ParamKind>> };
async function registry(token: string): Promise<Registry> {
  const res = await worker(new Request(`${BASE}/-/fuzz-registry`, { headers: { "PRIVATE-TOKEN": token } }));
  if (res.status !== 200) throw new Error(`GET /-/fuzz-registry: ${res.status} ${await res.text()}`);
  return (await res.json()) as Registry;
}

const vars = env as unknown as { FUZZ_RUNS?: string; FUZZ_SEED?: string; FUZZ_TRACE?: string; FUZZ_CI_RUNS?: string; FUZZ_SWEEP?: string };
const BIG = !!vars.FUZZ_RUNS;
/**
 * How many cases of the edge-value sweep this test sends (a fixed-seed slice, sequential). The whole
 * sweep (about 100,000 requests) is `npm run sweep` against a started server; `FUZZ_SWEEP=n` changes the slice.
 */
const SWEEP_SLICE = vars.FUZZ_SWEEP ? Number(vars.FUZZ_SWEEP) : 400;
const RUNS = BIG ? Number(vars.FUZZ_RUNS) : Number(vars.FUZZ_CI_RUNS || 100);
const SEED = vars.FUZZ_SEED ? Number(vars.FUZZ_SEED) : 20260408;

/** Real rows for the path parameters (fuzz-core.ts `fuzzFixtures`), as a throwaway administrator. */
async function fixtures() {
  const w = await world();
  // No `sudo` scope: a fuzzed `sudo` parameter must not act as someone else.
  const admin = await w.user({ admin: true, scopes: ["api", "read_api", "read_user", "read_repository", "write_repository", "admin_mode"] });
  const victim = await w.user();
  const group = await w.group({ visibility: "public", owners: [admin] });
  const values = await fuzzFixtures(client(admin.token), { groupId: group.id, victimId: victim.id });
  return { admin, values };
}

const send = (token: string, c: Case, values: Fixtures) => worker(requestOf(BASE, token, c, values));

function caseArbitrary(routes: Route[], declaredParams: Registry["declared"]): fc.Arbitrary<Case> {
  return fc.constantFrom(...routes).chain((route) => {
    const declared = Object.entries(declaredParams[route.key] ?? {});
    const paramArbs = Object.fromEntries(declared.filter(([k]) => !route.names.includes(k)).map(([k, kind]) => [k, valueFor(kind)]));
    const pathArbs = Object.fromEntries(route.names.map((n) => [n, fc.constantFrom(...PATH_EDGES)]));
    return fc.record({
      route: fc.constant(route),
      // Mostly the fixtures, so that the parameters are reached; sometimes a malformed path segment.
      path: fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record(pathArbs, { requiredKeys: [] }) }),
      params: fc.record(paramArbs, { requiredKeys: [] }),
      transport: fc.constantFrom<Case["transport"]>("query", "json", "json", "form", "multipart"),
    }) as fc.Arbitrary<Case>;
  });
}

/** Runs the tasks `CONCURRENCY` at a time: the database round trips overlap, the order does not matter. */
const CONCURRENCY = 6;
async function inParallel(tasks: (() => Promise<void>)[]) {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

describe("fuzz: no 5xx from any built endpoint", () => {
  it(`fast-check, seed ${SEED}, ${RUNS} cases over every route`, { timeout: BIG ? 3_600_000 : 600_000 }, async () => {
    const { admin, values } = await fixtures();
    const routes = routesOf((await registry(admin.token)).routes);
    const failures: string[] = [];
    let sent = 0;
    let unavailable = 0;
    const run = async (c: Case) => {
      const started = Date.now();
      // A request that never answers is as bad as a 5xx: give up on it after 20 s and report it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hang = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 20_000)));
      const attempt = () =>
        send(admin.token, c, values).then(async (r) => ({ status: r.status, retry: r.headers.get("retry-after"), body: await r.arrayBuffer() }));
      let res = await Promise.race([attempt(), hang]);
      // 503 with Retry-After is the answer for a database that cannot be reached (the shared test
      // database refuses sessions under load): not a fault of the input. Retried once, then counted.
      if (res?.status === 503 && res.retry) {
        sent += 1;
        res = await Promise.race([attempt(), hang]);
        if (res?.status === 503 && res.retry) unavailable += 1;
      }
      clearTimeout(timer);
      sent += 1;
      const failure = !res ? `hang ${describeCase(c)}` : res.status >= 500 && !(res.status === 503 && res.retry) ? `${res.status} ${describeCase(c)}` : null;
      if (failure) {
        failures.push(failure);
        // At once: a long run that is stopped (or whose workerd dies) still tells what it found.
        if (BIG) console.log(`[fuzz] ${failure}`);
      }
      if (BIG && sent % 1000 === 0) console.log(`[fuzz] ${sent} requests, ${failures.length} 5xx, ${unavailable} unavailable`);
      if (vars.FUZZ_TRACE && Date.now() - started > 1000) console.log(`[fuzz] slow ${Date.now() - started} ms ${describeCase(c)}`);
    };
    const alive = async (after: string) => {
      const res = await worker(new Request(`${BASE}/api/v4/user`, { headers: { "PRIVATE-TOKEN": admin.token } }));
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the fuzzer lost its credentials after ${after}`);
    };

    // Discovery: every route once with its fixtures, which fills the registry of declared parameters.
    let t = Date.now();
    // Reads first and deletes last, so that most routes meet their fixtures alive.
    const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const byMethod = [...routes].sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
    await inParallel(byMethod.map((route) => (): Promise<void> => run({ route, path: {}, params: {}, transport: "json" })));
    if (vars.FUZZ_TRACE) console.log(`[fuzz] discovery ${Date.now() - t} ms`);
    t = Date.now();
    const { declared } = await registry(admin.token);
    const covered = routes.filter((r) => declared[r.key]).length;
    if (vars.FUZZ_TRACE) for (const r of routes) if (!declared[r.key]) console.log(`[fuzz] no declared parameters: ${r.key}`);

    const cases = fc.sample(caseArbitrary(routes, declared), { seed: SEED, numRuns: RUNS });
    for (let i = 0; i < cases.length; i += 100) {
      const chunk = cases.slice(i, i + 100);
      await inParallel(chunk.map((c) => () => run(c)));
      await alive(`cases ${i}–${i + chunk.length - 1}`);
    }

    if (vars.FUZZ_TRACE) console.log(`[fuzz] cases ${Date.now() - t} ms`);
    // The edge-value sweep (fuzz-core.ts `sweepCases`): in CI a fixed-seed slice of it, sequential;
    // the whole of it is `npm run sweep` against a started server (scripts/sweep.mjs).
    const sweep = sweepCases(routes, (key) => Object.entries(declared[key] ?? {}));
    const slice = sliceOf(sweep.flat(), SEED, SWEEP_SLICE);
    for (const c of slice) await run(c);
    const swept = slice.length;
    await alive("the run");
    console.log(`[fuzz] seed ${SEED}: ${sent} requests (${swept} of the sweep's ${sweep.flat().length} edge values), ${routes.length} routes, ${covered} with declared parameters, ${failures.length} 5xx, ${unavailable} answered 503 (database unavailable)`);
    expect(failures).toEqual([]);
  });
});
