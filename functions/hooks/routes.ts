import * as z from "zod";
import type { WebHook } from "./queries";
import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, paramsError, recordNotFound } from "../kernel/errors";
import { authorizedProject, authorizedGroup } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { loadSettings } from "../shared/settings/load";
import { deliverNow, TEST_TRIGGERS, testSample } from "../shared/webhooks";
import { deliver } from "../shared/webhooks/deliver";
import { validBranchFilter } from "../shared/webhooks/events";
import { validHookUrl } from "../shared/webhooks/url_guard";
import { GroupHook, groupHook, Hook, hook, ProjectHook, projectHook } from "../entities/hooks";
import { StatusMessage } from "../entities/status_message";
import * as q from "./queries";

/**
 * Project hooks (lib/api/project_hooks.rb), group hooks (ee/lib/api/group_hooks.rb) and system hooks
 * (lib/api/system_hooks.rb), as GitLab 15.4 serves them. Project hooks need `admin_project`
 * (Maintainer), group hooks `admin_group` (Owner), system hooks an administrator. Authorization comes
 * before parameter validation, as Grape's `before` blocks do.
 * Deliveries: functions/shared/webhooks/ (the queue consumer and the one trigger per event kind).
 */
export const hooksRoutes = router();

const bool = () => p.bool().optional();
/** `project_hook_properties`: 15.4 requires `url` on create and on update alike. */
const ProjectHookParams = z.object({
  url: p.string(),
  push_events: bool(),
  issues_events: bool(),
  confidential_issues_events: bool(),
  merge_requests_events: bool(),
  tag_push_events: bool(),
  note_events: bool(),
  confidential_note_events: bool(),
  job_events: bool(),
  pipeline_events: bool(),
  wiki_page_events: bool(),
  deployment_events: bool(),
  releases_events: bool(),
  enable_ssl_verification: bool(),
  token: p.string().optional(),
  push_events_branch_filter: p.string().optional(),
});
/** `group_hook_properties` adds `subgroup_events`. */
const GroupHookParams = ProjectHookParams.extend({ subgroup_events: bool() });
/** System hooks take fewer events; `url` is optional on update (lib/api/system_hooks.rb). */
const SystemHookParams = z.object({
  url: p.string(),
  token: p.string().optional(),
  push_events: bool(),
  tag_push_events: bool(),
  merge_requests_events: bool(),
  repository_update_events: bool(),
  enable_ssl_verification: bool(),
});
const TestParams = z.object({ trigger: p.oneOf(...TEST_TRIGGERS) });
const UpdateSystemHookParams = SystemHookParams.extend({ url: p.string().optional() });

type Kind = "project" | "group" | "system";
type Scoped = { scope: q.HookScope; entity: (row: WebHook) => unknown };

/** Finds the owner (404), authorizes (401/403), and names the entity of the kind. */
async function scopeOf(c: Ctx, kind: Kind): Promise<Scoped> {
  if (kind === "system") {
    requireAdmin(c);
    return { scope: { kind }, entity: hook };
  }
  if (kind === "project") {
    const project = await authorizedProject(c, "admin_project", { signedIn: true });
    return { scope: { kind, projectId: project.id }, entity: projectHook };
  }
  const group = await authorizedGroup(c, "admin_group", { signedIn: true });
  return { scope: { kind, groupId: group.id }, entity: groupHook };
}

/** `requires :hook_id, type: Integer`. */
function hookId(c: Ctx): number {
  const raw = c.req.param("hook_id")!;
  if (!/^\d+$/.test(raw)) throw paramsError("hook_id is invalid");
  return Number(raw) > 2147483647 ? 0 : Number(raw);
}

async function findHook(c: Ctx, scope: q.HookScope): Promise<WebHook> {
  const found = await q.findHook(c.var.db(), scope, hookId(c));
  if (!found) throw recordNotFound();
  return found;
}

/** Declared parameters as column values; only what was sent. */
function valuesOf(params: Record<string, unknown>): q.HookValues {
  const camel = (k: string) => k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out[camel(k)] = v;
  return out as q.HookValues;
}

/** The model's validations: `public_url` (local addresses per the setting) and the branch filter. */
async function checkHook(c: Ctx, kind: Kind, values: q.HookValues): Promise<void> {
  if (values.url !== undefined) {
    const settings = await loadSettings(c.var.db());
    const allowLocal = (kind === "system" ? settings.allow_local_requests_from_system_hooks : settings.allow_local_requests_from_web_hooks_and_services) as boolean;
    if (!validHookUrl(values.url, { allowLocal, allowlist: settings.outbound_local_requests_whitelist as string[] }))
      throw apiError("Invalid url given", 422);
  }
  if (values.pushEventsBranchFilter && !validBranchFilter(values.pushEventsBranchFilter)) throw apiError("Invalid branch filter given", 422);
}

const BASES: Record<Kind, string> = { project: "/projects/:id/hooks", group: "/groups/:id/hooks", system: "/hooks" };
const CREATE: Record<Kind, z.ZodObject> = { project: ProjectHookParams, group: GroupHookParams, system: SystemHookParams };
const UPDATE: Record<Kind, z.ZodObject> = { project: ProjectHookParams, group: GroupHookParams, system: UpdateSystemHookParams };

/** Each kind's entity schema (the presenters are chosen by `scopeOf`). */
const SCHEMAS = { project: ProjectHook, group: GroupHook, system: Hook } as const;

for (const kind of ["project", "group", "system"] as const) {
  const base = BASES[kind];
  const schema = SCHEMAS[kind];

  /** GET /projects/:id/hooks, /groups/:id/hooks, /hooks */
  hooksRoutes.get(base, { params: pageParams, response: [schema] }, async (c) => {
    const s = await scopeOf(c, kind);
    const params = await readParams(c, pageParams);
    const page = pageOf(params);
    const list = await q.listHooks(c.var.db(), s.scope, page);
    paginate(c, page, list.total);
    return present(c, list.rows, s.entity);
  });

  /** GET /projects/:id/hooks/:hook_id, /groups/:id/hooks/:hook_id, /hooks/:hook_id (14.9+) */
  hooksRoutes.get(`${base}/:hook_id`, { response: schema }, async (c) => {
    const s = await scopeOf(c, kind);
    return present(c, await findHook(c, s.scope), s.entity);
  });

  /** POST /projects/:id/hooks, /groups/:id/hooks, /hooks: 201 with the hook; a refused URL is 422. */
  hooksRoutes.post(base, { params: CREATE[kind], response: schema, errors: [422] }, async (c) => {
    const s = await scopeOf(c, kind);
    const values = valuesOf(await readParams(c, CREATE[kind])) as q.HookValues & { url: string };
    await checkHook(c, kind, values);
    // SystemHook's `default_value_for`: no push events, repository update events on.
    if (kind === "system") Object.assign(values, { pushEvents: values.pushEvents ?? false, repositoryUpdateEvents: values.repositoryUpdateEvents ?? true });
    return present(c, await q.insertHook(c.var.db(), s.scope, values), s.entity, undefined, 201);
  });

  /** PUT /projects/:id/hooks/:hook_id, /groups/:id/hooks/:hook_id, /hooks/:hook_id */
  hooksRoutes.put(`${base}/:hook_id`, { params: UPDATE[kind], response: schema, errors: [422] }, async (c) => {
    const s = await scopeOf(c, kind);
    const found = await findHook(c, s.scope);
    const values = valuesOf(await readParams(c, UPDATE[kind]));
    if (Object.keys(values).length === 0) throw apiError("No parameters provided", 400); // system hooks only: the others require `url`
    await checkHook(c, kind, values);
    return present(c, await q.updateHook(c.var.db(), found.id, values), s.entity);
  });

  /** DELETE /projects/:id/hooks/:hook_id, /groups/:id/hooks/:hook_id, /hooks/:hook_id: 204 */
  hooksRoutes.delete(`${base}/:hook_id`, async (c) => {
    const s = await scopeOf(c, kind);
    const found = await findHook(c, s.scope);
    checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
    await q.deleteHook(c.var.db(), found.id);
    return c.body(null, 204);
  });
}

/**
 * POST /projects/:id/hooks/:hook_id/test/:trigger (lib/api/project_hooks.rb, 16.11+): delivers a sample
 * built from the project's data to this hook now; 201 `{"message":"201 Created"}` when the receiver
 * answers 2xx, else 422 with the receiver's body or the reason (blocked URL, no data to sample).
 * Differs from GitLab: release samples are not built (400 for that trigger): Edgeforge has no releases.
 */
hooksRoutes.post("/projects/:id/hooks/:hook_id/test/:trigger", { params: TestParams, response: StatusMessage, errors: [422] }, async (c) => {
  const s = await scopeOf(c, "project");
  const found = await findHook(c, s.scope);
  const { trigger } = validateParams({ trigger: c.req.param("trigger") }, TestParams);
  const db = c.var.db();
  const sample = await testSample(db, found.projectId!, trigger, c.var.actor!.user.id, baseUrl(c));
  if ("error" in sample) throw apiError(sample.error, 422);
  const result = await deliverNow(db, found, sample.header, sample.payload, baseUrl(c));
  if (!result.ok) throw apiError(result.error, 422);
  if (result.status < 200 || result.status > 299) throw apiError(result.body, 422);
  return c.json({ message: "201 Created" }, 201);
});

/** The sample of `POST /hooks/:hook_id` (lib/api/system_hooks.rb). */
const SYSTEM_HOOK_SAMPLE = {
  event_name: "project_create",
  name: "Ruby",
  path: "ruby",
  project_id: 1,
  owner_name: "Someone",
  owner_email: "example@gitlabhq.com",
};

/**
 * POST /hooks/:hook_id (lib/api/system_hooks.rb): delivers the sample at once and answers 201 with it,
 * whatever the receiver says (GitLab ignores the outcome too).
 */
hooksRoutes.post("/hooks/:hook_id", async (c) => {
  const s = await scopeOf(c, "system");
  const found = await findHook(c, s.scope);
  const settings = await loadSettings(c.var.db());
  await deliver(found, "System Hook", SYSTEM_HOOK_SAMPLE, {
    allowLocal: settings.allow_local_requests_from_system_hooks as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
    instanceUrl: baseUrl(c),
  });
  return c.json(SYSTEM_HOOK_SAMPLE, 201);
});
