import { createExecutionContext, env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { app } from "../../functions/app";
import edgeforge from "../../functions/index";
import { declaredParams, type ParamKind } from "../../functions/kernel/params";
import { BASE, client } from "../helpers/client";
import { world } from "../helpers/world";
import { edgeValues, PATH_EDGES, valueFor } from "./fuzz-values";

/**
 * Property: no input makes any built endpoint answer 5xx (issue 8).
 *
 * The endpoints come from the real router (`app.routes`) and their parameters from the kernel's
 * registry (`declaredParams`, filled by `validateParams` as routes run): a discovery pass calls every
 * route once, then fast-check derives values from each declared parameter's kind and sends them through
 * the Worker's entry point, in the query string, a JSON body, a form or a multipart body.
 *
 * CI runs a fixed seed and FUZZ_RUNS_CI cases; `npm run fuzz` (FUZZ_RUNS, FUZZ_SEED) runs more, plus a
 * deterministic sweep of every edge value of every parameter.
 */
/**
 * The Worker's real entry point, imported from source into the test's isolate (not the bundle the
 * other tests call): the registry of declared parameters is module state, read here after the run.
 */
const worker = (r: Request) => edgeforge.fetch(r, env as never, createExecutionContext());

const vars = env as unknown as { FUZZ_RUNS?: string; FUZZ_SEED?: string; FUZZ_TRACE?: string; FUZZ_CI_RUNS?: string; FUZZ_SWEEP?: string };
const BIG = !!vars.FUZZ_RUNS;
/** The sweep of every edge value (sequential, about 100,000 requests): `FUZZ_SWEEP=0` skips it. */
const SWEEP = BIG && vars.FUZZ_SWEEP !== "0";
const RUNS = BIG ? Number(vars.FUZZ_RUNS) : Number(vars.FUZZ_CI_RUNS || 100);
const SEED = vars.FUZZ_SEED ? Number(vars.FUZZ_SEED) : 20260408;

/**
 * Never fuzzed: what would take the fuzzer's own credentials away, or change the instance for the
 * tests running beside it (application settings, the license, geo nodes, the runner queue of other projects).
 */
const EXCLUDED = [
  /^(POST|PUT|DELETE) \/api\/v4\/personal_access_tokens/,
  /^(POST|PUT|DELETE|PATCH) \/api\/v4\/application\//,
  /^(POST|PUT|DELETE) \/api\/v4\/license/,
  /^(POST|PUT|DELETE) \/api\/v4\/geo_nodes/,
  /^POST \/api\/v4\/jobs\/request/,
  // The fixtures themselves: deleting them would leave the rest of the run answering 404.
  /^DELETE \/api\/v4\/(projects|groups)\/:id$/,
  /^POST \/api\/v4\/projects\/:id\/(archive|transfer)$/,
  /^PUT \/api\/v4\/(projects|groups)\/:id\/transfer$/,
];

type Route = { method: string; path: string; key: string; names: string[] };

function builtRoutes(): Route[] {
  const seen = new Map<string, Route>();
  for (const r of app.routes) {
    if (r.method === "ALL" || !r.path.startsWith("/api/v4/")) continue;
    const key = `${r.method} ${r.path}`;
    if (seen.has(key) || EXCLUDED.some((re) => re.test(key))) continue;
    const names = [...r.path.matchAll(/:([a-z_]+)(\{[^}]*\})?/g)].map((m) => m[1]);
    seen.set(key, { method: r.method, path: r.path, key, names });
  }
  return [...seen.values()];
}

type Fixtures = Record<string, string>;

/** Real rows for the path parameters, so that requests get past the lookups to the parameters. */
async function fixtures() {
  const w = await world();
  // No `sudo` scope: a fuzzed `sudo` parameter must not act as someone else.
  const admin = await w.user({ admin: true, scopes: ["api", "read_api", "read_user", "read_repository", "write_repository", "admin_mode"] });
  const victim = await w.user();
  const api = client(admin.token);
  const group = await w.group({ visibility: "public", owners: [admin] });
  const json = async (res: Promise<Response>) => {
    const r = await res;
    return r.status < 300 ? ((await r.json()) as Record<string, unknown>) : ({} as Record<string, unknown>);
  };
  const project = await json(api.post("/projects", { json: { name: `fuzz-${Date.now()}`, namespace_id: group.id, initialize_with_readme: true, visibility: "public" } }));
  const pid = project.id as number;
  const P = `/projects/${pid}`;
  await api.post(`${P}/repository/branches`, { json: { branch: "feature", ref: "main" } });
  await api.post(`${P}/repository/tags`, { json: { tag_name: "v1", ref: "main" } });
  const issue = await json(api.post(`${P}/issues`, { json: { title: "Fuzzed" } }));
  const mr = await json(api.post(`${P}/merge_requests`, { json: { title: "Fuzzed", source_branch: "feature", target_branch: "main" } }));
  const note = await json(api.post(`${P}/issues/${issue.iid}/notes`, { json: { body: "note" } }));
  const discussion = await json(api.post(`${P}/issues/${issue.iid}/discussions`, { json: { body: "thread" } }));
  const label = await json(api.post(`${P}/labels`, { json: { name: "fuzz", color: "#ff0000" } }));
  const milestone = await json(api.post(`${P}/milestones`, { json: { title: "m1" } }));
  const snippet = await json(api.post(`${P}/snippets`, { json: { title: "s", file_name: "a.txt", content: "x", visibility: "public" } }));
  const environment = await json(api.post(`${P}/environments`, { json: { name: "production" } }));
  await api.post(`${P}/feature_flags`, { json: { name: "flag", version: "new_version_flag" } });
  const badge = await json(api.post(`${P}/badges`, { json: { link_url: "https://example.com/%{project_path}", image_url: "https://example.com/b.svg" } }));
  const epic = await json(api.post(`/groups/${group.id}/epics`, { json: { title: "e" } }));
  const award = await json(api.post(`${P}/issues/${issue.iid}/award_emoji`, { json: { name: "thumbsup" } }));
  const other = await json(api.post(`${P}/issues`, { json: { title: "Other" } }));
  const link = await json(api.post(`${P}/issues/${issue.iid}/links`, { json: { target_project_id: pid, target_issue_iid: other.iid } }));
  // Rows behind the routes that look an id up before (or instead of) validating parameters.
  const hook = await json(api.post(`${P}/hooks`, { json: { url: "https://example.com/hook" } }));
  await api.post(`${P}/repository/commits`, {
    json: { branch: "ci", start_branch: "main", commit_message: "ci [skip ci]", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: "build:\n  script: [echo]\n" }] },
  });
  const pipeline = await json(api.post(`${P}/pipeline`, { json: { ref: "ci" } }));
  const jobs = await api.get(`${P}/pipelines/${pipeline.id}/jobs`);
  const job = jobs.status === 200 ? (((await jobs.json()) as Record<string, unknown>[])[0] ?? {}) : {};
  await api.put(`${P}/packages/generic/fuzz/1.0.0/f.txt`, { formBody: "package" });
  const packages = await api.get(`${P}/packages`);
  const pkg = packages.status === 200 ? (((await packages.json()) as Record<string, unknown>[])[0] ?? {}) : {};
  const schedule = await json(api.post(`${P}/pipeline_schedules`, { json: { description: "s", ref: "main", cron: "0 1 * * *" } }));
  const userList = await json(api.post(`${P}/feature_flags_user_lists`, { json: { name: "list", user_xids: "a" } }));
  const alertIntegration = await json(api.post(`${P}/alert_management/http_integrations`, { json: { name: "http" } }));
  const tree = await api.get(`${P}/repository/tree`);
  const blob = tree.status === 200 ? (((await tree.json()) as Record<string, unknown>[]).find((e) => e.type === "blob") ?? {}) : {};
  const token = await json(api.get(`/personal_access_tokens/self`));
  const values: Fixtures = {
    "projects:id": String(pid),
    "groups:id": String(group.id),
    "users:id": String(victim.id),
    user_id: String(victim.id),
    project_id: String(pid),
    group_id: String(group.id),
    issue_iid: String(issue.iid ?? 1),
    merge_request_iid: String(mr.iid ?? 1),
    note_id: String(note.id ?? 1),
    discussion_id: String(discussion.id ?? "1"),
    name: String(label.name ?? "fuzz"),
    milestone_id: String(milestone.id ?? 1),
    snippet_id: String(snippet.id ?? 1),
    environment_id: String(environment.id ?? 1),
    feature_flag_name: "flag",
    badge_id: String(badge.id ?? 1),
    "epics:iid": String(epic.iid ?? 1),
    epic_iid: String(epic.iid ?? 1),
    epic_id: String(epic.id ?? 1),
    award_id: String(award.id ?? 1),
    issue_link_id: String(link.id ?? 1),
    branch: "feature",
    ref_name: "main",
    ref: "main",
    sha: "main",
    tag_name: "v1",
    file_path: "README.md",
    hook_id: String(hook.id ?? 1),
    pipeline_id: String(pipeline.id ?? 1),
    job_id: String(job.id ?? 1),
    package_id: String(pkg.id ?? 1),
    pipeline_schedule_id: String(schedule.id ?? 1),
    "feature_flags_user_lists:iid": String(userList.iid ?? 1),
    integration_id: String(alertIntegration.id ?? 1),
    "blobs:sha": String(blob.id ?? "main"),
    "protected_branches:name": "main",
    "namespaces:id": String(group.id),
    "issues:id": String(issue.id ?? 1),
    "personal_access_tokens:id": String(token.id ?? 1),
    eventable_id: String(issue.iid ?? 1),
    subscribable_id: String(issue.iid ?? 1),
    slug: "slack",
  };
  return { admin, api, values, ownUserId: admin.id };
}

/** The value of one path parameter: the fixture, else an id that names no row (never a real user's). */
function pathValue(route: Route, name: string, values: Fixtures): string {
  const segments = route.path.split("/");
  const at = segments.findIndex((s) => s.startsWith(`:${name}`));
  const owner = segments[at - 1];
  return values[`${owner}:${name}`] ?? values[name] ?? "2147483647";
}

function buildPath(route: Route, values: Fixtures, override: Record<string, string> = {}): string {
  let path = route.path;
  for (const name of route.names) {
    const value = override[name] ?? pathValue(route, name, values);
    path = path.replace(new RegExp(`:${name}(\\{[^}]*\\})?`), value);
  }
  return path;
}

type Transport = "query" | "json" | "form" | "multipart";
type Case = { route: Route; path: Record<string, string>; params: Record<string, unknown>; transport: Transport };

/** Rack's nested keys (`a[]=1`, `h[k]=v`, `a[][k]=v`) for a form or query string. */
function flatten(prefix: string, value: unknown, out: [string, string][]) {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push([`${prefix}[]`, ""]);
    for (const v of value) {
      if (v && typeof v === "object" && !Array.isArray(v)) for (const [k, inner] of Object.entries(v)) flatten(`${prefix}[][${k}]`, inner, out);
      else flatten(`${prefix}[]`, v, out);
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flatten(`${prefix}[${k}]`, v, out);
  } else {
    out.push([prefix, value === null || value === undefined ? "" : String(value)]);
  }
}

async function send(token: string, c: Case, values: Fixtures): Promise<Response> {
  const url = new URL(`${BASE}${buildPath(c.route, values, c.path)}`);
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(c.params)) flatten(k, v, pairs);
  const headers = new Headers({ "PRIVATE-TOKEN": token });
  let body: BodyInit | undefined;
  const write = c.route.method !== "GET";
  if (!write || c.transport === "query") {
    for (const [k, v] of pairs) url.searchParams.append(k, v);
  } else if (c.transport === "json") {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(c.params);
  } else if (c.transport === "form") {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(pairs).toString();
  } else {
    const form = new FormData();
    for (const [k, v] of pairs) form.append(k, v);
    body = form;
  }
  return worker(new Request(url, { method: c.route.method, headers, body }));
}

function caseArbitrary(routes: Route[]): fc.Arbitrary<Case> {
  return fc.constantFrom(...routes).chain((route) => {
    const declared = declaredParams.get(route.key) ?? new Map<string, ParamKind>();
    const paramArbs = Object.fromEntries([...declared].filter(([k]) => !route.names.includes(k)).map(([k, kind]) => [k, valueFor(kind)]));
    const pathArbs = Object.fromEntries(route.names.map((n) => [n, fc.constantFrom(...PATH_EDGES)]));
    return fc.record({
      route: fc.constant(route),
      // Mostly the fixtures, so that the parameters are reached; sometimes a malformed path segment.
      path: fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record(pathArbs, { requiredKeys: [] }) }),
      params: fc.record(paramArbs, { requiredKeys: [] }),
      transport: fc.constantFrom<Transport>("query", "json", "json", "form", "multipart"),
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

function describeCase(c: Case): string {
  const params = JSON.stringify(c.params, (_, v) => (typeof v === "string" && v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : v));
  return `${c.route.key} path=${JSON.stringify(c.path)} ${c.transport} ${params}`;
}

describe("fuzz: no 5xx from any built endpoint", () => {
  it(`fast-check, seed ${SEED}, ${RUNS} cases over every route`, { timeout: SWEEP ? 4 * 3_600_000 : BIG ? 3_600_000 : 600_000 }, async () => {
    const { admin, values } = await fixtures();
    const routes = builtRoutes();
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
    const covered = routes.filter((r) => declaredParams.has(r.key)).length;
    if (vars.FUZZ_TRACE) for (const r of routes) if (!declaredParams.has(r.key)) console.log(`[fuzz] no declared parameters: ${r.key}`);

    const cases = fc.sample(caseArbitrary(routes), { seed: SEED, numRuns: RUNS });
    for (let i = 0; i < cases.length; i += 100) {
      const chunk = cases.slice(i, i + 100);
      await inParallel(chunk.map((c) => () => run(c)));
      await alive(`cases ${i}–${i + chunk.length - 1}`);
    }

    if (vars.FUZZ_TRACE) console.log(`[fuzz] cases ${Date.now() - t} ms`);
    if (SWEEP) {
      // Every edge value of every declared parameter, alone, through JSON and the query string.
      for (const route of routes) {
        for (const [name, kind] of declaredParams.get(route.key) ?? []) {
          if (route.names.includes(name)) continue;
          for (const value of edgeValues(kind))
            for (const transport of ["json", "query"] as const) await run({ route, path: {}, params: { [name]: value }, transport });
        }
        for (const name of route.names) for (const segment of PATH_EDGES) await run({ route, path: { [name]: segment }, params: {}, transport: "json" });
        await alive(route.key);
      }
    }
    await alive("the run");
    console.log(`[fuzz] seed ${SEED}: ${sent} requests, ${routes.length} routes, ${covered} with declared parameters, ${failures.length} 5xx, ${unavailable} answered 503 (database unavailable)`);
    expect(failures).toEqual([]);
  });
});
