import type { ParamKind } from "../../functions/kernel/params";
import { edgeValues, PATH_EDGES } from "./fuzz-values";

/**
 * What the fuzz test (test/hardening/fuzz.test.ts, inside workerd) and the edge-value sweep
 * (scripts/sweep.mjs, `npm run sweep`, over HTTP against a started server, which bundles this file with
 * esbuild) share: the routes fuzzed, their fixtures, how a case becomes a request, and the sweep's cases.
 * Nothing here imports the Worker or `cloudflare:test`.
 */

/**
 * Never fuzzed: what would take the fuzzer's own credentials away, or change the instance for the
 * tests running beside it (application settings, the license, geo nodes, the runner queue of other projects).
 */
export const EXCLUDED = [
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

export type Route = { method: string; path: string; key: string; names: string[] };

/** The fuzzed routes of `"<METHOD> <pattern>"` keys (Hono's `app.routes`): /api/v4 only, once each. */
export function routesOf(keys: Iterable<string>): Route[] {
  const seen = new Map<string, Route>();
  for (const key of keys) {
    const [method, path] = key.split(" ");
    if (method === "ALL" || !path.startsWith("/api/v4/")) continue;
    if (seen.has(key) || EXCLUDED.some((re) => re.test(key))) continue;
    const names = [...path.matchAll(/:([a-z_]+)(\{[^}]*\})?/g)].map((m) => m[1]);
    seen.set(key, { method, path, key, names });
  }
  return [...seen.values()];
}

export type Fixtures = Record<string, string>;
type CallOptions = { json?: unknown; formBody?: string; multipart?: FormData };
/** A client acting as the fuzzing administrator (test/helpers/client.ts `client`, or plain fetch). */
export type FixtureApi = {
  get(path: string, opts?: CallOptions): Promise<Response>;
  post(path: string, opts?: CallOptions): Promise<Response>;
  put(path: string, opts?: CallOptions): Promise<Response>;
};

/**
 * Real rows for the path parameters, so that requests get past the lookups to the parameters. `api`
 * acts as an administrator who owns `groupId`; `victimId` is a user the run may change.
 */
export async function fuzzFixtures(api: FixtureApi, { groupId, victimId }: { groupId: number; victimId: number }): Promise<Fixtures> {
  const json = async (res: Promise<Response>) => {
    const r = await res;
    return r.status < 300 ? ((await r.json()) as Record<string, unknown>) : (await r.arrayBuffer(), {} as Record<string, unknown>);
  };
  const drain = async (res: Promise<Response>) => void (await (await res).arrayBuffer());
  const first = async (res: Promise<Response>, pick: (e: Record<string, unknown>) => boolean = () => true) => {
    const r = await res;
    if (r.status !== 200) return (await r.arrayBuffer(), {} as Record<string, unknown>);
    return ((await r.json()) as Record<string, unknown>[]).find(pick) ?? {};
  };
  const project = await json(api.post("/projects", { json: { name: `fuzz-${Date.now()}`, namespace_id: groupId, initialize_with_readme: true, visibility: "public" } }));
  const pid = project.id as number;
  const P = `/projects/${pid}`;
  await drain(api.post(`${P}/repository/branches`, { json: { branch: "feature", ref: "main" } }));
  await drain(api.post(`${P}/repository/tags`, { json: { tag_name: "v1", ref: "main" } }));
  const issue = await json(api.post(`${P}/issues`, { json: { title: "Fuzzed" } }));
  const mr = await json(api.post(`${P}/merge_requests`, { json: { title: "Fuzzed", source_branch: "feature", target_branch: "main" } }));
  const note = await json(api.post(`${P}/issues/${issue.iid}/notes`, { json: { body: "note" } }));
  const discussion = await json(api.post(`${P}/issues/${issue.iid}/discussions`, { json: { body: "thread" } }));
  const label = await json(api.post(`${P}/labels`, { json: { name: "fuzz", color: "#ff0000" } }));
  const milestone = await json(api.post(`${P}/milestones`, { json: { title: "m1" } }));
  const snippet = await json(api.post(`${P}/snippets`, { json: { title: "s", file_name: "a.txt", content: "x", visibility: "public" } }));
  const environment = await json(api.post(`${P}/environments`, { json: { name: "production" } }));
  await drain(api.post(`${P}/feature_flags`, { json: { name: "flag", version: "new_version_flag" } }));
  const badge = await json(api.post(`${P}/badges`, { json: { link_url: "https://example.com/%{project_path}", image_url: "https://example.com/b.svg" } }));
  const epic = await json(api.post(`/groups/${groupId}/epics`, { json: { title: "e" } }));
  const award = await json(api.post(`${P}/issues/${issue.iid}/award_emoji`, { json: { name: "thumbsup" } }));
  const other = await json(api.post(`${P}/issues`, { json: { title: "Other" } }));
  const link = await json(api.post(`${P}/issues/${issue.iid}/links`, { json: { target_project_id: pid, target_issue_iid: other.iid } }));
  // Rows behind the routes that look an id up before (or instead of) validating parameters.
  const hook = await json(api.post(`${P}/hooks`, { json: { url: "https://example.com/hook" } }));
  await drain(
    api.post(`${P}/repository/commits`, {
      json: { branch: "ci", start_branch: "main", commit_message: "ci [skip ci]", actions: [{ action: "create", file_path: ".gitlab-ci.yml", content: "build:\n  script: [echo]\n" }] },
    }),
  );
  const pipeline = await json(api.post(`${P}/pipeline`, { json: { ref: "ci" } }));
  const job = await first(api.get(`${P}/pipelines/${pipeline.id}/jobs`));
  await drain(api.put(`${P}/packages/generic/fuzz/1.0.0/f.txt`, { formBody: "package" }));
  const pkg = await first(api.get(`${P}/packages`));
  const schedule = await json(api.post(`${P}/pipeline_schedules`, { json: { description: "s", ref: "main", cron: "0 1 * * *" } }));
  const userList = await json(api.post(`${P}/feature_flags_user_lists`, { json: { name: "list", user_xids: "a" } }));
  const alertIntegration = await json(api.post(`${P}/alert_management/http_integrations`, { json: { name: "http" } }));
  const blob = await first(api.get(`${P}/repository/tree`), (e) => e.type === "blob");
  const token = await json(api.get(`/personal_access_tokens/self`));

  // Rows for the routes the discovery did not reach with the fixtures above (each answered 404 or
  // 304 before validating anything): keys, avatars, forks, resource events, variables, packages'
  // files, group badges and hooks, an integration, a runner.
  const key = await json(api.post(`/user/keys`, { json: { title: "fuzz", key: randomSshKey() } }));
  const avatar = new FormData();
  avatar.append("avatar", new File([PNG], "avatar.png", { type: "image/png" }));
  await drain(api.put(`/groups/${groupId}`, { multipart: avatar }));
  const upstream = await json(api.post("/projects", { json: { name: `fuzz-upstream-${Date.now()}`, namespace_id: groupId, visibility: "public" } }));
  const groupLabel = await json(api.post(`/groups/${groupId}/labels`, { json: { name: "gfuzz", color: "#00ff00" } }));
  // A label, a milestone and a state event on the issue, the merge request and the epic.
  for (const target of [`${P}/issues/${issue.iid}`, `${P}/merge_requests/${mr.iid}`]) {
    await drain(api.put(target, { json: { add_labels: "fuzz", milestone_id: milestone.id } }));
    await drain(api.put(target, { json: { state_event: "close" } }));
    await drain(api.put(target, { json: { state_event: "reopen" } }));
  }
  const E = `/groups/${groupId}/epics/${epic.iid}`;
  await drain(api.put(E, { json: { add_labels: groupLabel.name ?? "gfuzz", state_event: "close" } }));
  await drain(api.put(E, { json: { state_event: "reopen" } }));
  const event = (collection: string, kind: string) => first(api.get(`${collection}/${kind}`));
  const events: Fixtures = {};
  for (const [owner, path] of [["issues", `${P}/issues/${issue.iid}`], ["merge_requests", `${P}/merge_requests/${mr.iid}`], ["epics", `/groups/${groupId}/epics/${epic.id}`]])
    for (const kind of ["resource_label_events", "resource_state_events", "resource_milestone_events"]) {
      const found = await event(path, kind);
      if (found.id) events[`${owner}:${kind}:event_id`] = String(found.id);
    }
  await drain(api.post(`${P}/pipeline_schedules/${schedule.id}/variables`, { json: { key: "FUZZ_VAR", value: "x" } }));
  await drain(api.post(`${P}/variables`, { json: { key: "FUZZ_VAR", value: "x" } }));
  await drain(api.post(`/groups/${groupId}/variables`, { json: { key: "FUZZ_VAR", value: "x" } }));
  const groupBadge = await json(api.post(`/groups/${groupId}/badges`, { json: { link_url: "https://example.com/g", image_url: "https://example.com/g.svg" } }));
  const groupHook = await json(api.post(`/groups/${groupId}/hooks`, { json: { url: "https://example.com/group-hook" } }));
  await drain(api.put(`${P}/integrations/slack`, { json: { webhook: "https://example.com/slack" } }));
  const registration = await json(api.post(`${P}/runners/reset_registration_token`));
  const runner = registration.token ? await json(api.post(`/runners`, { json: { token: registration.token, description: "fuzz" } })) : {};
  return {
    ...events,
    "keys:key_id": String(key.id ?? 1),
    "keys:id": String(key.id ?? 1),
    forked_from_id: String(upstream.id ?? 1),
    file: "archive.zip",
    "variables:key": "FUZZ_VAR",
    package_name: "fuzz",
    package_version: "1.0.0",
    file_name: "f.txt",
    "groups:badges:badge_id": String(groupBadge.id ?? 1),
    "groups:hooks:hook_id": String(groupHook.id ?? 1),
    "runners:id": String(runner.id ?? 1),
    "projects:id": String(pid),
    "groups:id": String(groupId),
    "users:id": String(victimId),
    user_id: String(victimId),
    project_id: String(pid),
    group_id: String(groupId),
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
    "namespaces:id": String(groupId),
    "issues:id": String(issue.id ?? 1),
    "personal_access_tokens:id": String(token.id ?? 1),
    eventable_id: String(issue.iid ?? 1),
    subscribable_id: String(issue.iid ?? 1),
    slug: "slack",
  };
}

/** A fresh ed25519 public key in OpenSSH's format (keys are unique per instance). */
function randomSshKey(): string {
  const type = new TextEncoder().encode("ssh-ed25519");
  const blob = new Uint8Array(4 + type.length + 4 + 32);
  const view = new DataView(blob.buffer);
  view.setUint32(0, type.length);
  blob.set(type, 4);
  view.setUint32(4 + type.length, 32);
  blob.set(crypto.getRandomValues(new Uint8Array(32)), 8 + type.length);
  return `ssh-ed25519 ${btoa(String.fromCharCode(...blob))} fuzz`;
}

/** A 1×1 PNG. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (ch) => ch.charCodeAt(0));

/**
 * The value of one path parameter: the fixture named by the two segments before it
 * (`groups:badges:badge_id`), by the one before it (`keys:id`) or by its name alone; else an id that
 * names no row (never a real user's).
 */
function pathValue(route: Route, name: string, values: Fixtures): string {
  const segments = route.path.split("/");
  const at = segments.findIndex((s) => s.startsWith(`:${name}`));
  const owner = segments[at - 1];
  return values[`${segments[at - 3]}:${owner}:${name}`] ?? values[`${owner}:${name}`] ?? values[name] ?? "2147483647";
}

export function buildPath(route: Route, values: Fixtures, override: Record<string, string> = {}): string {
  let path = route.path;
  for (const name of route.names) {
    const value = override[name] ?? pathValue(route, name, values);
    path = path.replace(new RegExp(`:${name}(\\{[^}]*\\})?`), value);
  }
  return path;
}

export type Transport = "query" | "json" | "form" | "multipart";
export type Case = { route: Route; path: Record<string, string>; params: Record<string, unknown>; transport: Transport };

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

/** The request of a case, against `base` (`http://host:port`), as the administrator of `token`. */
export function requestOf(base: string, token: string, c: Case, values: Fixtures): Request {
  const url = new URL(`${base}${buildPath(c.route, values, c.path)}`);
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
  return new Request(url, { method: c.route.method, headers, body });
}

export function describeCase(c: Case): string {
  const params = JSON.stringify(c.params, (_, v) => (typeof v === "string" && v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : v));
  return `${c.route.key} path=${JSON.stringify(c.path)} ${c.transport} ${params}`;
}

/**
 * The edge-value sweep: every edge value of every declared parameter of every route, alone,
 * through JSON and the query string, then every malformed path segment of every path parameter.
 * Grouped by route, in route order, so that a caller can check its credentials between routes.
 */
export function sweepCases(routes: Route[], declared: (key: string) => Iterable<[string, ParamKind]> | undefined): Case[][] {
  return routes.map((route) => {
    const cases: Case[] = [];
    for (const [name, kind] of declared(route.key) ?? []) {
      if (route.names.includes(name)) continue;
      for (const value of edgeValues(kind)) for (const transport of ["json", "query"] as const) cases.push({ route, path: {}, params: { [name]: value }, transport });
    }
    for (const name of route.names) for (const segment of PATH_EDGES) cases.push({ route, path: { [name]: segment }, params: {}, transport: "json" });
    return cases;
  });
}

/** `n` cases of `cases` picked by a fixed seed (a Fisher-Yates prefix on mulberry32), in their order. */
export function sliceOf<T>(cases: T[], seed: number, n: number): T[] {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const index = cases.map((_, i) => i);
  const take = Math.min(n, index.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (index.length - i));
    [index[i], index[j]] = [index[j], index[i]];
  }
  return index
    .slice(0, take)
    .sort((a, b) => a - b)
    .map((i) => cases[i]);
}
