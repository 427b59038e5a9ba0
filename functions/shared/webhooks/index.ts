import type { WebHook } from "../../../db/schema";
import { withDb, type Executor } from "../../kernel/db";
import type { Bindings } from "../../kernel/env";
import type { PresentContext } from "../../kernel/present";
import { ZERO_OID, commitTitle, listCommits, listRefs, readCommitChanges, readCommitRows, repoOf } from "../git";
import { loadSettings } from "../settings/load";
import { CHAT_SERVICES, chatMessage, chatRequests, chatServiceOf } from "./chat";
import { deliver, deliverChat } from "./deliver";
import { branchMatches } from "./events";
import { EVENT_HEADER, deploymentPayload, groupWikiPagePayload, type HookNoteable, hookTime, issueAttrs, issuePayload, jobPayload, mergeRequestAttrs, mergeRequestPayload, notePayload, pipelinePayload, pushPayload, releasePayload, subgroupPayload, wikiPagePayload } from "./payloads";
import { findPage, findWiki, listPages, wikiPageAt } from "../wikis/store";
import * as q from "./queries";

/**
 * Webhook deliveries. The request that changes something calls `hookEvent` once per event
 * kind (issues routes, merge request routes, note, discussion and commit comment routes, and
 * `shared/ci/coordinator.ts pipelinesForPush` for every ref update; pipeline and job status changes come
 * through the reporters of shared/ci/finished.ts); it only enqueues `{kind, ids}` on the
 * `edgeforge-webhooks` queue, no database work. The
 * consumer builds GitLab's payload, finds the hooks (project, ancestor groups, system), and enqueues one
 * delivery per hook, so a failing receiver is retried alone (`max_retries` in wrangler.toml). Merge
 * request events also become one `status_check` delivery per external status check that applies, and
 * every event one `chat` delivery per request of each active chat integration with the event's flag
 * (./chat.ts builds GitLab's message for the service).
 *
 * Differs from GitLab: the payload is built when the consumer runs, moments after the change, so a
 * second change in between shows in both; `changes` compares with the attributes the request saw before.
 */
// The message shapes live with the queue binding that carries them (kernel/env.ts), so that the kernel
// names no shared module; they are re-exported here for the producers and the consumer.
export type { HookEvent, WebhookMessage } from "../../kernel/env";
import type { HookEvent, WebhookMessage } from "../../kernel/env";

/** The one entry point of every event kind: enqueue and return (never fails the caller's request). */
export async function hookEvent(env: Bindings, baseUrl: string, event: HookEvent): Promise<void> {
  await hookEvents(env, baseUrl, [event]);
}

/** Several events at once (a processing run moves many jobs), in order, in batches of the queue's 100. */
export async function hookEvents(env: Bindings, baseUrl: string, events: HookEvent[]): Promise<void> {
  if (!env.WEBHOOKS_QUEUE || events.length === 0) return;
  try {
    if (events.length === 1) {
      await env.WEBHOOKS_QUEUE.send({ type: "event", baseUrl, event: events[0] } satisfies WebhookMessage);
      return;
    }
    for (let i = 0; i < events.length; i += 100) {
      await env.WEBHOOKS_QUEUE.sendBatch(events.slice(i, i + 100).map((event) => ({ body: { type: "event", baseUrl, event } satisfies WebhookMessage })));
    }
  } catch (err) {
    console.error(`webhooks: enqueue failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The hook attributes of an issue or merge request as the request saw them before its change. */
export { issueAttrs as issueHookAttrs, mergeRequestAttrs as mergeRequestHookAttrs };

export type BuiltEvent = { flag: q.HookFlag; header: string; payload: unknown; branch?: string };

function context(baseUrl: string): PresentContext {
  return { baseUrl, actor: null, now: new Date() };
}

async function lastCommitOf(db: Executor, project: q.HookProject, sha: string | null) {
  if (!sha) return null;
  // Commits are indexed by the fork network's object pool (a fork's `pool_id`).
  return (await readCommitRows(db, project.poolId ?? project.id, [sha.trim()])).get(sha.trim()) ?? null;
}

/** The merge request's source project: the project itself, or the fork it comes from (null: gone). */
async function sourceOf(db: Executor, project: q.HookProject, mr: { sourceProjectId: number }): Promise<q.HookProject | null> {
  return mr.sourceProjectId === project.id ? project : q.loadProject(db, mr.sourceProjectId);
}

/**
 * Job status changes as Job Hook events, only for projects with a hook listening for jobs
 * (`Ci::Build#execute_hooks` asks `has_active_hooks?(:job_hooks)` first; no integration sends job
 * messages). A pipeline moves many jobs, so one statement for the batch saves a queue message and its
 * three lookups per job in projects without job hooks.
 */
export async function jobHookEvents(env: Bindings, baseUrl: string, changes: { id: number; projectId: number; status: string }[]): Promise<void> {
  if (!env.WEBHOOKS_QUEUE || changes.length === 0) return;
  let listening: Set<number>;
  try {
    listening = await withDb(env, (db) => q.projectsWithHooks(db, [...new Set(changes.map((j) => j.projectId))], "jobEvents"));
  } catch (err) {
    // As an enqueue failure in hookEvents: the pipeline's own work must not fail for a hook.
    console.error(`webhooks: job hooks lookup failed: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const events = changes.filter((j) => listening.has(j.projectId)).map((j) => ({ kind: "job" as const, projectId: j.projectId, id: j.id, status: j.status }));
  await hookEvents(env, baseUrl, events);
}

/** The deployment statuses GitLab's Deployment sends hooks for (`after_transition any => :running` and `=> FINISHED_STATUSES`). */
export const HOOKED_DEPLOYMENT_STATUSES: readonly string[] = ["running", "success", "failed", "canceled"];

/**
 * Job status changes as Deployment Hook events: a job's deployment takes the job's status in the
 * statement that moves the job (trigger `ci_builds_sync_deployments`, docs/deployments.md), so a job
 * moved into running, success, failed or canceled moved its deployment there too. One statement reads
 * the deployments of the batch's jobs, only in projects with a hook listening for deployments.
 * The job's creation is not a deployment transition (the deployment is inserted `created`).
 */
export async function deploymentJobHookEvents(env: Bindings, baseUrl: string, changes: { id: number; status: string; created?: boolean }[]): Promise<void> {
  const moved = changes.filter((c) => !c.created && HOOKED_DEPLOYMENT_STATUSES.includes(c.status));
  if (!env.WEBHOOKS_QUEUE || moved.length === 0) return;
  const statusChangedAt = new Date().toISOString();
  let found: Awaited<ReturnType<typeof q.movedDeploymentsWithHooks>>;
  try {
    found = await withDb(env, (db) => q.movedDeploymentsWithHooks(db, [...new Set(moved.map((c) => c.id))]));
  } catch (err) {
    // As in jobHookEvents: the pipeline's own work must not fail for a hook.
    console.error(`webhooks: deployment hooks lookup failed: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const byJob = new Map(found.map((d) => [d.deployableId, d]));
  const events: HookEvent[] = [];
  for (const c of moved) {
    const d = byJob.get(c.id);
    if (d) events.push({ kind: "deployment", projectId: d.projectId, id: d.id, status: c.status, statusChangedAt });
  }
  await hookEvents(env, baseUrl, events);
}

/** Builds the payloads of one event (a push may carry several ref updates). */
export async function buildEvent(db: Executor, project: q.HookProject, event: HookEvent, baseUrl: string): Promise<BuiltEvent[]> {
  const ctx = context(baseUrl);
  if (event.kind === "issue") {
    const issue = await q.loadIssue(db, project.id, { id: event.id });
    if (!issue) return [];
    const users = await q.loadUsers(db, [event.userId, ...issue.assigneeIds]);
    const user = users.get(event.userId);
    if (!user) return [];
    const payload = issuePayload(issue, project, ctx, user, event.action, users, event.before ?? null);
    return [issue.confidential
      ? { flag: "confidentialIssuesEvents", header: EVENT_HEADER.confidential_issue, payload }
      : { flag: "issuesEvents", header: EVENT_HEADER.issue, payload }];
  }
  if (event.kind === "merge_request") {
    const mr = await q.loadMergeRequest(db, project.id, { id: event.id });
    if (!mr) return [];
    const users = await q.loadUsers(db, [event.userId, ...mr.assigneeIds, ...mr.reviewerIds]);
    const user = users.get(event.userId);
    if (!user) return [];
    const payload = mergeRequestPayload(mr, project, ctx, user, event.action, users, await lastCommitOf(db, project, mr.sha), event.before ?? null, await sourceOf(db, project, mr));
    return [{ flag: "mergeRequestsEvents", header: EVENT_HEADER.merge_request, payload }];
  }
  if (event.kind === "note") return noteEvent(db, project, ctx, { id: event.id }, event.userId);
  if (event.kind === "pipeline") return pipelineEvent(db, project, ctx, { id: event.id }, event.status);
  if (event.kind === "job") return jobEvent(db, project, ctx, { id: event.id }, event.status);
  if (event.kind === "deployment") return deploymentEvent(db, project, ctx, { id: event.id }, event.status, event.statusChangedAt);
  if (event.kind === "wiki_page") return wikiPageEvent(db, project, ctx, event);
  if (event.kind === "release") {
    const payload = releasePayload(event.release, project, ctx, event.action, await lastCommitOf(db, project, event.release.sha));
    return [{ flag: "releasesEvents", header: EVENT_HEADER.release, payload }];
  }
  const built: BuiltEvent[] = [];
  for (const e of await q.claimPushEvents(db, project.id)) built.push(await pushEvent(db, project, ctx, e));
  return built;
}

export async function noteEvent(db: Executor, project: q.HookProject, ctx: PresentContext, which: { id: number } | "first", userId?: number): Promise<BuiltEvent[]> {
  const note = await q.loadNote(db, project.id, which);
  if (!note) return [];
  const users = await q.loadUsers(db, [userId ?? note.authorId]);
  const user = users.get(userId ?? note.authorId ?? 0);
  if (!user) return [];
  let noteable: HookNoteable | null = null;
  if (note.noteableType === "Issue" && note.noteableId !== null) {
    const issue = await q.loadIssue(db, project.id, { id: note.noteableId });
    if (issue) noteable = { kind: "issue", issue };
  } else if (note.noteableType === "MergeRequest" && note.noteableId !== null) {
    const mr = await q.loadMergeRequest(db, project.id, { id: note.noteableId });
    if (mr) noteable = { kind: "merge_request", mr, lastCommit: await lastCommitOf(db, project, mr.sha), source: await sourceOf(db, project, mr) };
  } else if (note.noteableType === "Snippet" && note.noteableId !== null) {
    const snippet = await q.loadSnippet(db, project.id, note.noteableId);
    if (snippet) noteable = { kind: "snippet", snippet };
  } else if (note.noteableType === "Commit") {
    const commit = await lastCommitOf(db, project, note.commitId);
    if (commit) noteable = { kind: "commit", commit };
  }
  if (!noteable) return [];
  const confidential = note.confidential || (noteable.kind === "issue" && noteable.issue.confidential);
  const payload = notePayload(note, project, ctx, user, noteable);
  return [confidential
    ? { flag: "confidentialNoteEvents", header: EVENT_HEADER.confidential_note, payload }
    : { flag: "noteEvents", header: EVENT_HEADER.note, payload }];
}

/** Gitlab::DataBuilder::WikiPage of one page write (the page as it is at the event's commit). */
async function wikiPageEvent(db: Executor, project: q.HookProject, ctx: PresentContext, event: Extract<HookEvent, { kind: "wiki_page" }>): Promise<BuiltEvent[]> {
  const found = await wikiPageAt(db, event.wikiId, event.path, event.sha);
  if (!found) return [];
  const user = (await q.loadUsers(db, [event.userId])).get(event.userId);
  if (!user) return [];
  const payload = wikiPagePayload(found.page, project, ctx, user, event.action, found.defaultBranch);
  return [{ flag: "wikiPageEvents", header: EVENT_HEADER.wiki_page, payload }];
}

/** The group events: their group (whose hooks and ancestors' hooks hear them) and flag. */
type GroupEvent = Extract<HookEvent, { kind: "group_wiki_page" | "subgroup" }>;
const isGroupEvent = (event: HookEvent): event is GroupEvent => event.kind === "group_wiki_page" || event.kind === "subgroup";

/**
 * The deliveries of a group's own event (a group wiki's page, a subgroup created or deleted): one per
 * group hook of the group and its ancestors with the flag (EE Group#execute_hooks). No project hooks,
 * system hooks, chat integrations or status checks: none belongs to a group (GitLab's group-level
 * integrations are not built).
 */
export async function groupEventDeliveries(db: Executor, event: GroupEvent, baseUrl: string): Promise<WebhookMessage[]> {
  const group = await q.loadGroup(db, event.kind === "subgroup" ? event.parentId : event.groupId);
  if (!group) return [];
  const hooks = await q.groupHooksFor(db, group, event.kind === "subgroup" ? "subgroupEvents" : "wikiPageEvents");
  // Most groups have no hooks: nothing more is read then.
  if (hooks.length === 0) return [];
  let header: string;
  let payload: unknown;
  if (event.kind === "subgroup") {
    header = EVENT_HEADER.subgroup;
    payload = subgroupPayload(event.subgroup, group, event.action);
  } else {
    const found = await wikiPageAt(db, event.wikiId, event.path, event.sha);
    const user = found ? (await q.loadUsers(db, [event.userId])).get(event.userId) : undefined;
    if (!found || !user) return [];
    header = EVENT_HEADER.wiki_page;
    payload = groupWikiPagePayload(found.page, group, context(baseUrl), user, event.action, found.defaultBranch);
  }
  return hooks.map((hook) => ({ type: "delivery", baseUrl, hookId: hook.id, header, payload, uuid: crypto.randomUUID() }));
}

/** Gitlab::DataBuilder::Pipeline of one pipeline (`which`), with the status of the transition it reports. */
export async function pipelineEvent(db: Executor, project: q.HookProject, ctx: PresentContext, which: { id: number } | "newest", status?: string): Promise<BuiltEvent[]> {
  const hp = await q.loadPipeline(db, project.id, which === "newest" ? "newest" : which);
  if (!hp) return [];
  const users = await q.loadUsers(db, [hp.pipeline.userId, ...hp.builds.map((b) => b.userId)]);
  const commit = await lastCommitOf(db, project, hp.pipeline.sha);
  const payload = pipelinePayload(hp, project, ctx, status ?? hp.pipeline.status, users, commit);
  return [{ flag: "pipelineEvents", header: EVENT_HEADER.pipeline, payload }];
}

/** Gitlab::DataBuilder::Build of one job (`which`), with the status of the change it reports. */
export async function jobEvent(db: Executor, project: q.HookProject, ctx: PresentContext, which: { id: number } | "newest", status?: string): Promise<BuiltEvent[]> {
  const hj = await q.loadJob(db, project.id, which);
  if (!hj) return [];
  const users = await q.loadUsers(db, [hj.job.userId]);
  const commit = await lastCommitOf(db, project, hj.pipeline.sha);
  const author = commit ? await q.userByEmail(db, commit.authorEmail) : null;
  const authorUrl = author ? `${ctx.baseUrl}/${author.username}` : commit ? `mailto:${commit.authorEmail}` : null;
  const user = hj.job.userId === null ? null : (users.get(hj.job.userId) ?? null);
  const payload = jobPayload(hj, project, ctx, status ?? hj.job.status, user, commit, authorUrl);
  return [{ flag: "jobEvents", header: EVENT_HEADER.job, payload }];
}

/** Gitlab::DataBuilder::Deployment of one deployment (`which`), with the status and time of the transition it reports. */
export async function deploymentEvent(db: Executor, project: q.HookProject, ctx: PresentContext, which: { id: number } | "newest", status?: string, statusChangedAt?: string): Promise<BuiltEvent[]> {
  const hd = await q.loadDeployment(db, project.id, which);
  if (!hd) return [];
  const userId = hd.jobUserId ?? hd.deployment.userId;
  const user = userId === null ? null : ((await q.loadUsers(db, [userId])).get(userId) ?? null);
  const commit = await lastCommitOf(db, project, hd.deployment.sha);
  const payload = deploymentPayload(hd, project, ctx, status ?? hd.deployment.status, statusChangedAt ?? new Date().toISOString(), user, commit ? commitTitle(commit.message) : null);
  return [{ flag: "deploymentEvents", header: EVENT_HEADER.deployment, payload }];
}

/** One ref update: up to 20 commits, oldest first (`Gitlab::DataBuilder::Push`, `commits.last(20)`). */
export async function pushEvent(db: Executor, project: q.HookProject, ctx: PresentContext, e: { ref: string; before: string; after: string; userId: number | null }): Promise<BuiltEvent> {
  const tag = e.ref.startsWith("refs/tags/");
  let rows: Awaited<ReturnType<typeof readCommitRows>> extends Map<string, infer R> ? R[] : never = [];
  let total = 0;
  if (e.after !== ZERO_OID && !tag) {
    const defaultRef = project.defaultBranch ? `refs/heads/${project.defaultBranch}` : null;
    const range = e.before !== ZERO_OID ? `${e.before}..${e.after}` : defaultRef && defaultRef !== e.ref ? `${project.defaultBranch}..${e.after}` : e.after;
    const listed = await listCommits(db, repoOf(project), { refName: range, offset: 0, limit: 100 });
    if (listed.kind === "ok") {
      total = listed.commits.length;
      rows = listed.commits.slice(0, 20).reverse();
    }
  }
  const commits = [];
  for (const row of rows) {
    const changes = await readCommitChanges(db, project.id, row.oid.trim());
    const files = { added: [] as string[], modified: [] as string[], removed: [] as string[] };
    for (const ch of changes) {
      if (ch.status === "A") files.added.push(ch.path);
      else if (ch.status === "D") files.removed.push(ch.path);
      else if (ch.status === "R") {
        files.added.push(ch.path);
        if (ch.oldPath) files.removed.push(ch.oldPath);
      } else files.modified.push(ch.path);
    }
    commits.push({ row, files });
  }
  const users = await q.loadUsers(db, [e.userId]);
  const payload = pushPayload(e, project, ctx, e.userId ? (users.get(e.userId) ?? null) : null, commits, total);
  return tag
    ? { flag: "tagPushEvents", header: EVENT_HEADER.tag_push, payload }
    : { flag: "pushEvents", header: EVENT_HEADER.push, payload, branch: e.ref.slice("refs/heads/".length) };
}

/** The hooks one built event goes to: flag, and the push branch filter of project and group hooks. */
export async function hooksForEvent(db: Executor, project: q.HookProject, built: BuiltEvent): Promise<WebHook[]> {
  const hooks = await q.hooksFor(db, project, built.flag);
  if (built.branch === undefined) return hooks;
  return hooks.filter((h) => h.type === "SystemHook" || branchMatches(h.pushEventsBranchFilter, built.branch!));
}

/** Settings that steer one delivery: which local addresses the hook's kind may reach. */
async function guardFor(db: Executor, hook: WebHook) {
  const settings = await loadSettings(db);
  return {
    allowLocal: (hook.type === "SystemHook" ? settings.allow_local_requests_from_system_hooks : settings.allow_local_requests_from_web_hooks_and_services) as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  };
}

/** The guard of integrations' requests (`allow_local_requests_from_web_hooks_and_services`), checked at delivery. */
async function serviceGuard(db: Executor) {
  const settings = await loadSettings(db);
  return {
    allowLocal: settings.allow_local_requests_from_web_hooks_and_services as boolean,
    allowlist: settings.outbound_local_requests_whitelist as string[],
  };
}

/** The chat requests of one built event: each active chat integration with the event's flag (`execute_integrations`). */
function chatDeliveries(project: q.HookProject, chats: Awaited<ReturnType<typeof q.chatIntegrationsFor>>, built: BuiltEvent, baseUrl: string): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  const payload = built.payload as Record<string, unknown>;
  for (const integration of chats.integrations) {
    const service = chatServiceOf(integration.slug);
    // The integration's flag of the event (the same names as the hooks' `hooks_scope`).
    if (!service || !(integration as unknown as Record<string, boolean>)[built.flag]) continue;
    const settings = { service, properties: integration.properties, defaultBranch: project.defaultBranch, protectedBranches: chats.protectedBranches };
    const message = chatMessage(settings, payload, `${project.namespaceFullName} / ${project.name}`);
    if (!message) continue;
    const eventType = String(payload.event_type ?? payload.object_kind);
    for (const request of chatRequests(settings, message, eventType)) out.push({ type: "chat", baseUrl, integrationId: integration.id, ...request });
  }
  return out;
}

/** Delivers one payload to one hook now (the consumer, and the test endpoints). */
export async function deliverNow(db: Executor, hook: WebHook, header: string, payload: unknown, baseUrl: string, uuid?: string) {
  return deliver(hook, header, payload, { ...(await guardFor(db, hook)), instanceUrl: baseUrl, uuid });
}

/**
 * ExternalStatusChecks::DispatchService: the merge request hook payload with `external_approval_rule`
 * (`{id, name, external_url}`) POSTed as JSON to the check's URL; the URL passes the same guard as
 * project hooks (`allow_local_requests_from_web_hooks_and_services`), checked at delivery.
 */
export async function deliverStatusCheck(db: Executor, check: q.StatusCheckTarget, payload: unknown, baseUrl: string) {
  return deliver({ url: check.externalUrl, token: null }, EVENT_HEADER.merge_request, payload, {
    ...(await serviceGuard(db)),
    instanceUrl: baseUrl,
    plain: true,
  });
}

/** The payload an external status check receives: the merge request hook's, with the check (`payload_data`). */
function statusCheckPayload(payload: unknown, check: q.StatusCheckTarget): unknown {
  return { ...(payload as Record<string, unknown>), external_approval_rule: { id: check.id, name: check.name, external_url: check.externalUrl } };
}

/** WebHookService's retry rule: a blocked URL is not retried; network errors and 5xx are. */
function settle(msg: Message<WebhookMessage>, result: Awaited<ReturnType<typeof deliver>>) {
  if (!result.ok && result.error.startsWith("URL is blocked")) msg.ack();
  else if (!result.ok || result.status >= 500) msg.retry({ delaySeconds: Math.min(60 * 2 ** msg.attempts, 3600) });
  else msg.ack();
}

/** The queue consumer of `edgeforge-webhooks` (dispatched by functions/queue.ts). */
export async function consumeWebhooks(batch: MessageBatch<WebhookMessage>, env: Bindings): Promise<void> {
  await withDb(env, async (db) => {
    for (const msg of batch.messages) {
      const body = msg.body;
      try {
        if (body.type === "event") {
          const event = body.event;
          if (isGroupEvent(event)) {
            const deliveries = await groupEventDeliveries(db, event, body.baseUrl);
            if (deliveries.length && env.WEBHOOKS_QUEUE) await env.WEBHOOKS_QUEUE.sendBatch(deliveries.map((d) => ({ body: d })));
            msg.ack();
            continue;
          }
          const project = await q.loadProject(db, event.projectId);
          const deliveries: WebhookMessage[] = [];
          // Most projects have no hooks: find out before building anything (a push still moves its cursor).
          const hooked = project ? await q.anyHooks(db, project) : false;
          // Merge request events also go to the project's external status checks that apply.
          const checks = project && event.kind === "merge_request" ? await q.statusChecksFor(db, event.id) : [];
          const chats = project ? await q.chatIntegrationsFor(db, project.id, Object.keys(CHAT_SERVICES)) : { integrations: [], protectedBranches: [] };
          const anyone = hooked || checks.length > 0 || chats.integrations.length > 0;
          if (project && !anyone && event.kind === "push") await q.claimPushEvents(db, project.id);
          if (project && anyone) {
            for (const built of await buildEvent(db, project, event, body.baseUrl)) {
              for (const hook of hooked ? await hooksForEvent(db, project, built) : []) {
                deliveries.push({ type: "delivery", baseUrl: body.baseUrl, hookId: hook.id, header: built.header, payload: built.payload, uuid: crypto.randomUUID() });
              }
              deliveries.push(...chatDeliveries(project, chats, built, body.baseUrl));
              if (built.flag !== "mergeRequestsEvents") continue;
              for (const check of checks) deliveries.push({ type: "status_check", baseUrl: body.baseUrl, checkId: check.id, payload: statusCheckPayload(built.payload, check) });
            }
          }
          if (deliveries.length && env.WEBHOOKS_QUEUE) await env.WEBHOOKS_QUEUE.sendBatch(deliveries.map((d) => ({ body: d })));
          msg.ack();
        } else if (body.type === "status_check") {
          const check = await q.statusCheckById(db, body.checkId);
          if (!check) {
            msg.ack(); // deleted since: nothing to deliver
            continue;
          }
          settle(msg, await deliverStatusCheck(db, check, body.payload, body.baseUrl));
        } else if (body.type === "chat") {
          const integration = await q.activeIntegrationById(db, body.integrationId);
          const webhook = integration?.properties.webhook;
          if (typeof webhook !== "string" || !webhook) {
            msg.ack(); // deactivated or deleted since: nothing to notify
            continue;
          }
          settle(msg, await deliverChat(webhook, body, await serviceGuard(db)));
        } else {
          const [hook] = await q.hooksByIds(db, [body.hookId]);
          if (!hook) {
            msg.ack(); // deleted since: nothing to deliver
            continue;
          }
          settle(msg, await deliverNow(db, hook, body.header, body.payload, body.baseUrl, body.uuid));
        }
      } catch (err) {
        console.error(`webhooks: ${body.type} failed: ${err instanceof Error ? err.message : String(err)}`);
        msg.retry({ delaySeconds: 30 });
      }
    }
  });
}

/**
 * The attributes an update's `changes` are computed from, as the request saw them before the change
 * (keys and formats of `object_attributes`). Label and assignee changes are not reported.
 */
export function hookAttrsBefore(row: {
  title: string;
  description: string | null;
  state: string;
  confidential?: boolean;
  dueDate?: string | null;
  milestoneId: number | null;
  discussionLocked: boolean | null;
  timeEstimate: number;
  updatedAt: Date | string;
  targetBranch?: string;
  draft?: boolean;
}): Record<string, unknown> {
  return {
    title: row.title,
    description: row.description,
    state_id: ({ opened: 1, closed: 2, merged: 3, locked: 4 } as Record<string, number>)[row.state] ?? 1,
    milestone_id: row.milestoneId,
    discussion_locked: row.discussionLocked,
    time_estimate: row.timeEstimate,
    updated_at: hookTime(row.updatedAt),
    ...(row.confidential !== undefined ? { confidential: row.confidential } : {}),
    ...(row.dueDate !== undefined ? { due_date: row.dueDate } : {}),
    ...(row.targetBranch !== undefined ? { target_branch: row.targetBranch } : {}),
    ...(row.draft !== undefined ? { work_in_progress: row.draft } : {}),
  };
}

/** `update`, or `close`/`reopen`/`merge` when the state moved (Issues::UpdateService's hook action). */
export function updateAction(before: string, after: string): "update" | "close" | "reopen" | "merge" {
  if (before !== after && after === "closed") return "close";
  if (before !== after && after === "merged") return "merge";
  if (before === "closed" && after === "opened") return "reopen";
  return "update";
}

/** The triggers `POST /projects/:id/hooks/:hook_id/test/:trigger` builds samples for. */
export const TEST_TRIGGERS = ["push_events", "tag_push_events", "issues_events", "confidential_issues_events", "note_events", "merge_requests_events", "job_events", "pipeline_events", "wiki_page_events", "deployment_events"] as const;
export type TestTrigger = (typeof TEST_TRIGGERS)[number];

/**
 * TestHooks::ProjectService: a sample payload from the project's own data, or GitLab's message when the
 * project has nothing to show. The event goes to the one hook under test whatever its flags.
 */
export async function testSample(db: Executor, projectId: number, trigger: TestTrigger, userId: number, baseUrl: string): Promise<BuiltEvent | { error: string }> {
  const project = await q.loadProject(db, projectId);
  if (!project) return { error: "Ensure the project has at least 1 commit." };
  const ctx = context(baseUrl);
  if (trigger === "push_events") {
    if (!project.defaultBranch) return { error: "Ensure the project has at least 1 commit." };
    const listed = await listCommits(db, repoOf(project), { refName: project.defaultBranch, offset: 0, limit: 3 });
    if (listed.kind !== "ok" || listed.commits.length === 0) return { error: "Ensure the project has at least 1 commit." };
    const oids = listed.commits.map((c) => c.oid.trim());
    const before = listed.commits.length === 3 ? oids[2] : (listed.commits[listed.commits.length - 1].parents[0] ?? ZERO_OID);
    return pushEvent(db, project, ctx, { ref: `refs/heads/${project.defaultBranch}`, before, after: oids[0], userId });
  }
  if (trigger === "tag_push_events") {
    const [tag] = await listRefs(db, project.id, "refs/tags/");
    if (!tag) return { error: "Ensure the project has tags." };
    return pushEvent(db, project, ctx, { ref: tag.name, before: ZERO_OID, after: (tag.peeled ?? tag.target).trim(), userId });
  }
  if (trigger === "note_events") {
    const [built] = await noteEvent(db, project, ctx, "first", userId);
    return built ?? { error: "Ensure the project has notes." };
  }
  if (trigger === "pipeline_events") {
    // TestHooks::ProjectService#pipeline_events_data: the project's newest pipeline.
    const [built] = await pipelineEvent(db, project, ctx, "newest");
    return built ?? { error: "Ensure the project has CI pipelines." };
  }
  if (trigger === "job_events") {
    // TestHooks::ProjectService#job_events_data: the project's newest job.
    const [built] = await jobEvent(db, project, ctx, "newest");
    return built ?? { error: "Ensure the project has CI jobs." };
  }
  if (trigger === "deployment_events") {
    // TestHooks::ProjectService#deployment_events_data: the project's newest deployment, its own status, now.
    const [built] = await deploymentEvent(db, project, ctx, "newest");
    return built ?? { error: "Ensure the project has deployments." };
  }
  if (trigger === "wiki_page_events") {
    // TestHooks::ProjectService#wiki_page_events_data: the wiki's first page, as created.
    const wiki = project.wikiEnabled ? await findWiki(db, { projectId }) : null;
    const [first] = await listPages(db, wiki, false);
    const page = first ? await findPage(db, wiki, first.slug) : null;
    const found = page ? await wikiPageAt(db, wiki!.id, page.path, page.commit.oid) : null;
    const user = (await q.loadUsers(db, [userId])).get(userId);
    if (!found || !user) return { error: "Ensure the wiki is enabled and has pages." };
    return { flag: "wikiPageEvents", header: EVENT_HEADER.wiki_page, payload: wikiPagePayload(found.page, project, ctx, user, "create", found.defaultBranch) };
  }
  if (trigger === "merge_requests_events") {
    const mr = await q.loadMergeRequest(db, project.id, "first");
    if (!mr) return { error: "Ensure the project has merge requests." };
    const [built] = await buildEvent(db, project, { kind: "merge_request", projectId, id: mr.id, action: "open", userId }, baseUrl);
    return built ?? { error: "Ensure the project has merge requests." };
  }
  const issue = await q.loadIssue(db, project.id, "first");
  if (!issue) return { error: "Ensure the project has issues." };
  const [built] = await buildEvent(db, project, { kind: "issue", projectId, id: issue.id, action: "open", userId }, baseUrl);
  return built ?? { error: "Ensure the project has issues." };
}
