/**
 * GitLab Flavored Markdown to HTML, as `Banzai.render_and_post_process` (lib/banzai.rb) gives the
 * Markdown API and the entities' `*_html` fields. The one renderer of Edgeforge.
 *
 * Signature (stable; other domains call it):
 *
 *   renderMarkdown(scope, text, options?): Promise<string>
 *   renderMarkdownMany(scope, texts, options?): Promise<(string | null)[]>
 *
 *   scope:   a request's Hono context `c` (its database, actor and base URL are used), or
 *            `{ db, baseUrl, actor? }` outside a request (a queue consumer, a Durable Object).
 *   options: { project?: ProjectWithAccess  the context of `#1`, `!1`, `~label`, `%milestone`, shas
 *                                           (as kernel/lookup.ts `authorizedProject` returns it)
 *              group?: GroupWithAccess      the context of `~label`, `%milestone` without a project
 *              actor?: Actor | null         whose rights decide what resolves; default: the request's
 *              gfm?: boolean                false: plain CommonMark (GitLab's :plain_markdown
 *                                           pipeline: no references, emoji, anchors, task lists);
 *                                           default true
 *              singleLine?: boolean         GitLab's :single_line pipeline (label descriptions, merge
 *                                           request titles): no Markdown, the text escaped, then
 *                                           emoji, autolinks and references }
 *
 * References resolve only to what the actor may read; anything else stays plain text (GitLab's
 * ReferenceRedactor). `renderMarkdownMany` renders many texts with one lookup statement per reference
 * kind in all, for lists (`*_html` of many rows): no statement per row. The HTML is sanitised with
 * GitLab's allow-list (no script, no event handler attributes, no `javascript:` URL).
 *
 * The engine (markdown-it, js-xss) is imported on first use, so requests that render nothing do not
 * evaluate it (test/node/bundle_size.test.mjs counts it all the same).
 */
import type { GroupWithAccess, ProjectWithAccess } from "../../kernel/abilities";
import { canReadGroup, canReadProject, allowed } from "../../kernel/abilities";
import type { Executor } from "../../kernel/db";
import type { Actor, Ctx } from "../../kernel/env";
import { baseUrl as requestBaseUrl } from "../../kernel/present";
import { textColor } from "../../entities/labels";
import { canReadIssue, canReadMergeRequest } from "../issuables/policy";
import { commitsByPrefix, issuesByIid, labelsOf, mentionables, mergeRequestsByIid, milestonesOf, projectsByPath } from "./queries";
import type { FoundRef, Parent, ResolvedRef } from "./references";

export type MarkdownScope = Ctx | { db: Executor; baseUrl: string; actor?: Actor | null };
export type MarkdownOptions = { project?: ProjectWithAccess | null; group?: GroupWithAccess | null; actor?: Actor | null; gfm?: boolean; singleLine?: boolean };

let engine: Promise<typeof import("./engine")> | null = null;
const loadEngine = () => (engine ??= import("./engine"));

/** One text as HTML. */
export async function renderMarkdown(scope: MarkdownScope, text: string, options: MarkdownOptions = {}): Promise<string> {
  return (await renderMarkdownMany(scope, [text], options))[0] ?? "";
}

/** Many texts of one context (null stays null), with one statement per reference kind in all. */
export async function renderMarkdownMany(scope: MarkdownScope, texts: (string | null)[], options: MarkdownOptions = {}): Promise<(string | null)[]> {
  if (texts.every((t) => t === null)) return texts.map(() => null);
  const { parseMarkdown } = await loadEngine();
  const mode = options.singleLine ? "single_line" : (options.gfm ?? true) ? "gfm" : "plain";
  const parsed = texts.map((t) => (t === null ? null : parseMarkdown(t, mode, true)));
  const all = parsed.flatMap((p) => p?.references ?? []);
  const resolved = all.length ? await resolve(scopeOf(scope, options), all, options) : new Map<string, ResolvedRef>();
  const { referenceHtml } = await import("./references");
  return parsed.map((p) =>
    p === null
      ? null
      : p.finish((ref) => {
          const hit = resolved.get(refKey(ref));
          return hit ? referenceHtml(ref, hit) : null;
        }),
  );
}

type Scope = { db: Executor; baseUrl: string; actor: Actor | null };

function scopeOf(scope: MarkdownScope, options: MarkdownOptions): Scope {
  if ("req" in scope) return { db: scope.var.db(), baseUrl: requestBaseUrl(scope), actor: options.actor !== undefined ? options.actor : scope.var.actor };
  return { db: scope.db, baseUrl: scope.baseUrl, actor: options.actor !== undefined ? options.actor : (scope.actor ?? null) };
}

const refKey = (ref: FoundRef) => `${ref.kind}\u0000${(ref.path ?? "").toLowerCase()}\u0000${ref.byId ? "#" : ""}${ref.key}`;

/**
 * Each distinct reference to what it links to, for the references the actor may read. Statements:
 * projects named by path, issues, merge requests, labels, milestones, users and groups, commits: at most
 * one each, and none for a kind that does not occur.
 */
async function resolve(scope: Scope, found: FoundRef[], options: MarkdownOptions): Promise<Map<string, ResolvedRef>> {
  const { db, actor } = scope;
  // Each distinct reference once, however often the texts repeat it.
  const refs = uniqueBy(found, refKey);
  const out = new Map<string, ResolvedRef>();
  const url = (path: string) => `${scope.baseUrl}/${path.replace(/^\/+/, "")}`;
  const context = options.project ?? null;

  // Projects: the context and those named by cross-project references the actor may read.
  const named = [...new Set(refs.filter((r) => r.path !== null && r.kind !== "user").map((r) => r.path!.toLowerCase()))].filter((p) => p !== context?.fullPath.toLowerCase());
  const projectsByLowerPath = new Map<string, ProjectWithAccess>();
  if (context) projectsByLowerPath.set(context.fullPath.toLowerCase(), context);
  for (const project of await projectsByPath(db, actor, named)) if (canReadProject(actor, project)) projectsByLowerPath.set(project.fullPath.toLowerCase(), project);
  const projectOf = (ref: FoundRef) => (ref.path === null ? context : (projectsByLowerPath.get(ref.path.toLowerCase()) ?? null));
  const projectById = new Map([...projectsByLowerPath.values()].map((p) => [p.id, p]));
  // A cross-project reference shows its path; one to the context project does not.
  const prefixOf = (ref: FoundRef, project: ProjectWithAccess) => (ref.path !== null && project.id !== context?.id ? project.fullPath : null);

  const ofKind = (kind: FoundRef["kind"]) => refs.filter((r) => r.kind === kind);
  const pairs = (kind: "issue" | "merge_request") =>
    ofKind(kind).flatMap((r) => {
      const project = projectOf(r);
      const iid = Number(r.key);
      return project && Number.isSafeInteger(iid) && iid <= 2147483647 ? [{ ref: r, project, iid }] : [];
    });

  const wantedIssues = pairs("issue").filter((w) => allowed(actor, "read_issue", w.project));
  const wantedMrs = pairs("merge_request");
  const labelRefs = ofKind("label").flatMap((r) => (projectOf(r) || (r.path === null && options.group) ? [r] : []));
  const milestoneRefs = ofKind("milestone").flatMap((r) => (projectOf(r) || (r.path === null && options.group) ? [r] : []));
  const userRefs = ofKind("user");
  // Differs from GitLab: a sha names any commit of the project's object pool (a fork network shares
  // one), where GitLab asks the project's own repository.
  const commitRefs = ofKind("commit").flatMap((r) => {
    const project = projectOf(r);
    return project && allowed(actor, "read_code", project) ? [{ ref: r, project }] : [];
  });

  // Owners of labels and milestones: each project and its ancestor groups, or the context group and its ancestors.
  const owners = (rs: FoundRef[]) => {
    const projectIds = new Set<number>();
    const groupIds = new Set<number>();
    for (const r of rs) {
      const project = projectOf(r);
      if (project) {
        projectIds.add(project.id);
        if (project.namespace.type === "Group") for (const id of project.namespace.traversalIds) groupIds.add(id);
      } else if (options.group && canReadGroup(actor, options.group)) for (const id of options.group.traversalIds) groupIds.add(id);
    }
    return { projectIds: [...projectIds], groupIds: [...groupIds] };
  };
  const ancestry = (r: FoundRef): number[] => {
    const project = projectOf(r);
    if (project) return project.namespace.type === "Group" ? project.namespace.traversalIds : [];
    return options.group ? options.group.traversalIds : [];
  };
  const numbers = (rs: FoundRef[]) => [...new Set(rs.filter((r) => r.byId).map((r) => Number(r.key)).filter((n) => n <= 2147483647))];
  const names = (rs: FoundRef[]) => [...new Set(rs.filter((r) => !r.byId).map((r) => r.key))];

  const [issueRows, mrRows, labelRows, milestoneRows, mentionRows, commitRows] = await Promise.all([
    issuesByIid(db, wantedIssues.map((w) => ({ projectId: w.project.id, iid: w.iid }))),
    mergeRequestsByIid(db, wantedMrs.map((w) => ({ projectId: w.project.id, iid: w.iid }))),
    labelRefs.length ? labelsOf(db, owners(labelRefs), names(labelRefs), numbers(labelRefs)) : [],
    milestoneRefs.length ? milestonesOf(db, owners(milestoneRefs), names(milestoneRefs), numbers(milestoneRefs)) : [],
    mentionables(db, actor, [...new Set(userRefs.map((r) => r.key))]),
    commitsByPrefix(db, uniqueBy(commitRefs.map((w) => ({ poolId: w.project.poolId ?? w.project.id, prefix: w.ref.key })), (w) => `${w.poolId}:${w.prefix}`)),
  ]);

  const byIid = <T extends { projectId: number; iid: number }>(rows: T[]) => new Map(rows.map((r) => [`${r.projectId}:${r.iid}`, r]));
  const issuesByKey = byIid(issueRows);
  const mrsByKey = byIid(mrRows);
  for (const w of wantedIssues) {
    const issue = issuesByKey.get(`${w.project.id}:${w.iid}`);
    if (!issue || !canReadIssue(actor, w.project, issue)) continue;
    out.set(refKey(w.ref), { kind: "issue", url: url(`${w.project.fullPath}/-/issues/${issue.iid}`), projectId: w.project.id, projectPath: w.project.fullPath, id: issue.id, iid: issue.iid, title: issue.title, state: issue.state, issueType: issue.issueType });
  }
  for (const w of wantedMrs) {
    const mr = mrsByKey.get(`${w.project.id}:${w.iid}`);
    if (!mr || !canReadMergeRequest(actor, w.project, mr)) continue;
    out.set(refKey(w.ref), { kind: "merge_request", url: url(`${w.project.fullPath}/-/merge_requests/${mr.iid}`), projectId: w.project.id, projectPath: w.project.fullPath, id: mr.id, iid: mr.iid, title: mr.title, state: mr.state });
  }
  const groupBy = <T>(rows: T[], keys: (row: T) => string[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) for (const key of keys(row)) map.set(key, [...(map.get(key) ?? []), row]);
    return map;
  };
  const labelsByKey = groupBy(labelRows, (l) => [`t:${l.title}`, `#${l.id}`]);
  const milestonesByKey = groupBy(milestoneRows, (m) => [`t:${m.title}`, `#${m.iid}`]);
  const mentionsByKey = new Map(mentionRows.map((m) => [`${m.kind}:${m.path.toLowerCase()}`, m]));
  for (const r of labelRefs) {
    const project = projectOf(r);
    if (project && !allowed(actor, "read_label", project)) continue;
    const groups = ancestry(r);
    // The project's own label wins over a group's; among groups, the nearest.
    const candidates = (labelsByKey.get(r.byId ? `#${r.key}` : `t:${r.key}`) ?? []).filter((l) => ((project && l.projectId === project.id) || (l.groupId !== null && groups.includes(l.groupId))));
    candidates.sort((a, b) => rank(a, groups) - rank(b, groups));
    const label = candidates[0];
    if (!label) continue;
    const parent: Parent = project ? { project: project.id } : { group: options.group!.id };
    const list = project ? `${project.fullPath}/-/issues` : `groups/${options.group!.fullPath}/-/issues`;
    out.set(refKey(r), { kind: "label", url: url(`${list}?label_name=${encodeURIComponent(label.title)}`), parent, id: label.id, title: label.title, color: label.color, textColor: textColor(label.color), description: label.description });
  }
  for (const r of milestoneRefs) {
    const project = projectOf(r);
    if (project && !allowed(actor, "read_milestone", project)) continue;
    const groups = ancestry(r);
    const candidates = (milestonesByKey.get(r.byId ? `#${r.key}` : `t:${r.key}`) ?? []).filter((m) => ((project && m.projectId === project.id) || (m.groupId !== null && groups.includes(m.groupId))));
    candidates.sort((a, b) => rank(a, groups) - rank(b, groups));
    const milestone = candidates[0];
    if (!milestone) continue;
    const owner = milestone.projectId !== null ? projectById.get(milestone.projectId) : undefined;
    const href = owner ? `${owner.fullPath}/-/milestones/${milestone.iid}` : `groups/${milestone.groupPath}/-/milestones/${milestone.iid}`;
    const parent: Parent = project ? { project: project.id } : { group: options.group!.id };
    out.set(refKey(r), { kind: "milestone", url: url(href), parent, id: milestone.id, title: milestone.title, inProject: project ? prefixOf(r, project) : null });
  }
  for (const r of userRefs) {
    const lower = r.key.toLowerCase();
    const user = mentionsByKey.get(`user:${lower}`) ?? mentionsByKey.get(`group:${lower}`);
    if (!user) continue;
    out.set(refKey(r), user.kind === "user" ? { kind: "user", url: url(user.path), userId: user.id, name: user.name } : { kind: "group", url: url(`groups/${user.path}`), groupId: user.id, name: user.name });
  }
  const commitsByKey = new Map<string, typeof commitRows>();
  for (const c of commitRows) commitsByKey.set(`${c.poolId}:${c.prefix}`, [...(commitsByKey.get(`${c.poolId}:${c.prefix}`) ?? []), c]);
  for (const w of commitRefs) {
    const hits = commitsByKey.get(`${w.project.poolId ?? w.project.id}:${w.ref.key}`) ?? [];
    // An ambiguous prefix names no commit.
    if (hits.length !== 1) continue;
    const commit = hits[0];
    out.set(refKey(w.ref), { kind: "commit", url: url(`${w.project.fullPath}/-/commit/${commit.sha}`), projectId: w.project.id, sha: commit.sha, title: commit.message.split("\n")[0], projectPrefix: prefixOf(w.ref, w.project) });
  }
  return out;
}

/** Project rows first, then groups nearest to the context (last in `traversal_ids`) first. */
function rank(row: { projectId: number | null; groupId: number | null }, groups: number[]): number {
  if (row.projectId !== null) return -1;
  return groups.length - groups.indexOf(row.groupId ?? -1);
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}
