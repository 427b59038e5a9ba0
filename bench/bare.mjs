#!/usr/bin/env node
// The baseline of `npm run bench`: a bare Node `http` server with a pooled `pg`, answering the two measured
// endpoints with the SAME SQL statements the Worker runs for them, in the same order, one after another
// (no Promise.all, as in the Worker). Only the transport differs: a long-lived pool here; in the Worker a
// per-request connection through the WebSocket proxy (docs/performance.md). The JSON has the keys of
// projects/entities.ts `projectWithAccess`, so the responses weigh about the same (the bench prints both).
//
// The SQL mirrors, statement by statement (keep in sync when those change; checked against the Worker's
// statements as PostgreSQL logged them with log_statement=all — same tables, joins, subqueries, filters,
// order and limits; `t.*` stands for Drizzle's column lists):
//   1. functions/kernel/auth.ts `authenticate`: the token and its user, by SHA-256 digest.
//   GET /projects/:id (functions/projects/routes/project.ts):
//   2. functions/projects/queries.ts `findReadableProjectRow` → `selectRows`: project, namespace, personal
//      owner, access level, direct project access, group-hierarchy access, and the active group links with
//      their readable groups as JSON (`sharedGroupsJson`); readability is decided on that row.
//   GET /projects?per_page=20:
//   2. queries.ts `listProjects` → `selectRows` with `conditions` (admin: `projectIsVisible` is `true`),
//      ordered by created_at desc, id desc, LIMIT/OFFSET. (The Worker reads the page's ids with the count
//      in one statement, then the rows by id: the same two statements' work.)
//   3. kernel/pagination.ts `cappedCount` over the same FROM/WHERE.
//   GET /projects/:id/issues?per_page=20 (functions/issues/routes/list.ts):
//   2. kernel/lookup.ts `loadProject`, as for GET /projects/:id.
//   3. issues/queries/list.ts `listIssueIds`: the page's ids (project, issue types; created_at desc, id desc).
//   4. kernel/pagination.ts `cappedCount` over the same FROM/WHERE.
//   5. kernel/issue_preload.ts `loadIssueRows`: the rows with author, closer, assignees, labels, milestone,
//      closing merge request and blocking counts, and whether the caller commented, in one statement.
//
// Env: BARE_PORT, BARE_TOKEN (only this token is accepted, as root's), BARE_POOL_MAX, and either
// BARE_DATABASE_URL (PostgreSQL) or BARE_PGLITE_DIR (opens that PGlite, serves it with pglite-socket on
// loopback, and connects pg to it; PGlite is one session, so use BARE_POOL_MAX=1 there).
import { createHash } from "node:crypto";
import http from "node:http";
import pg from "pg";

const port = Number(process.env.BARE_PORT);
const poolMax = Number(process.env.BARE_POOL_MAX || 10);
const token = process.env.BARE_TOKEN;

// The Worker reads timestamps as strings and converts them in the entity; do the same work here.
const TEXT = (value) => value;
const types = { getTypeParser: (oid, format) => (oid === 1114 || oid === 1184 || oid === 1082 ? TEXT : pg.types.getTypeParser(oid, format)) };

const closers = [];
let connectionString = process.env.BARE_DATABASE_URL;
if (!connectionString) {
  const { openPglite, servePglite } = await import("../scripts/pglite-server.mjs");
  const pglite = await openPglite({ dataDir: process.env.BARE_PGLITE_DIR });
  const socket = await servePglite(pglite);
  connectionString = socket.url;
  closers.push(() => socket.close(), () => pglite.close());
}

let pool = newPool();
function newPool() {
  return new pg.Pool({ connectionString, max: poolMax, types });
}

const active = "(m.expires_at IS NULL OR m.expires_at > current_date)";

// 1. kernel/auth.ts
const AUTH = `select t.*, u.* from personal_access_tokens t inner join users u on u.id = t.user_id
  where t.token_digest = $1 limit 1`;

// kernel/visibility.ts projectAccessLevel($userId) for projects p in namespaces n.
const PROJECT_ACCESS_LEVEL = (u) => `GREATEST(
    COALESCE((SELECT max(m.access_level) FROM members m
      WHERE m.user_id = ${u} AND ${active}
        AND ((m.source_type = 'Project' AND m.source_id = p.id)
          OR (m.source_type = 'Namespace' AND m.source_id = ANY(n.traversal_ids)))), 0),
    COALESCE((SELECT max(LEAST(m.access_level, l.group_access)) FROM project_group_links l
      JOIN namespaces g ON g.id = l.group_id
      JOIN members m ON m.source_type = 'Namespace' AND m.source_id = ANY(g.traversal_ids) AND m.user_id = ${u} AND ${active}
      WHERE l.project_id = p.id AND (l.expires_at IS NULL OR l.expires_at > current_date)), 0)
  )::int`;

// 2. kernel/lookup.ts loadProject (by id): GET /projects/:id/issues.
const LOOKUP = `select p.*, n.*, ${PROJECT_ACCESS_LEVEL("$2")} as access_level
  from projects p inner join namespaces n on n.id = p.namespace_id where p.id = $1 limit 1`;

// projects/queries.ts sharedGroupsJson (admin: groupIsVisible is `true`).
const SHARED_GROUPS_JSON = `COALESCE((SELECT json_agg(json_build_object('groupId', l.group_id, 'groupAccess', l.group_access,
      'expiresAt', l.expires_at, 'group', json_build_object('name', sg.name, 'fullPath', sg.full_path)) ORDER BY l.id)
    FROM project_group_links l JOIN namespaces sg ON sg.id = l.group_id
    WHERE l.project_id = p.id AND (l.expires_at IS NULL OR l.expires_at > current_date) AND true), '[]'::json)`;

// projects/queries.ts selectRows (the FROM, joins and selected values; WHERE/ORDER/LIMIT appended).
const SELECT_ROWS = `select p.*, n.*, o.*, ${PROJECT_ACCESS_LEVEL("$1")} as access_level,
    (SELECT m.access_level FROM members m WHERE m.source_type = 'Project' AND m.source_id = p.id AND m.user_id = $1
      AND ${active}) as project_access,
    (CASE WHEN n.type = 'Group' THEN (SELECT max(m.access_level) FROM members m
      WHERE m.source_type = 'Namespace' AND m.source_id = ANY(n.traversal_ids) AND m.user_id = $1
        AND ${active}) END) as group_access,
    ${SHARED_GROUPS_JSON} as shared_groups
  from projects p inner join namespaces n on n.id = p.namespace_id
  left join users o on (n.type = $2 and o.id = n.owner_id)`;

// 3. loadProjectRow.
const PROJECT_ROW = `${SELECT_ROWS} where p.id = $3 limit 1`;

// 2. listProjects page: admin → projectIsVisible is `true`; default order created_at desc, id desc;
//    Drizzle leaves out `offset` when it is 0.
const LIST_PAGE = (offset) => `${SELECT_ROWS} where true order by p.created_at desc, p.id desc limit $3${offset > 0 ? " offset $4" : ""}`;

// 3. kernel/pagination.ts cappedCount.
const LIST_COUNT = `SELECT count(*)::int AS n FROM (select 1 from projects p inner join namespaces n on n.id = p.namespace_id
  where true limit $1) AS counted`;

// GET /projects/:id/issues: the statements as PostgreSQL logged them (log_statement=all), columns spelled out.
const ISSUE_TYPES = ["issue", "incident", "test_case", "requirement"];
const ISSUE_FILTER = `"issues"."project_id" IN (SELECT "projects"."id" FROM "projects" WHERE "projects"."issues_enabled" AND true)
  AND "issues"."project_id" = $1 AND "issues"."issue_type" = ANY($2::text[])`;
const ISSUE_PAGE = (offset) => `select "id" from "issues" where ${ISSUE_FILTER} order by "issues"."created_at" DESC, "issues"."id" DESC limit $3${offset > 0 ? " offset $4" : ""}`;
const ISSUE_COUNT = `SELECT count(*)::int AS n FROM ((select 1 from "issues" where ${ISSUE_FILTER} limit $3)) AS counted`;
const USER_JSON = `json_build_object('id', u.id, 'username', u.username, 'name', u.name, 'state', u.state, 'avatarUrl', u.avatar_url, 'email', u.email)`;
const ISSUE_ROWS = `select i.id, i.iid, i.project_id, i.title, i.description, i.state, i.issue_type, i.author_id, i.closed_by_id,
    i.closed_at, i.milestone_id, i.confidential, i.discussion_locked, i.due_date, i.weight, i.iteration_id, i.health_status,
    i.relative_position, i.moved_to_id, i.duplicated_to_id, i.time_estimate, i.total_time_spent, i.upvotes, i.downvotes,
    i.user_notes_count, i.label_ids, i.created_at, i.updated_at, p.id, p.path, p.full_path, p.namespace_id, n.type,
    (SELECT ${USER_JSON} FROM users u WHERE u.id = i.author_id),
    (SELECT ${USER_JSON} FROM users u WHERE u.id = i.closed_by_id),
    COALESCE((SELECT json_agg(${USER_JSON} ORDER BY u.id) FROM issue_assignees ia JOIN users u ON u.id = ia.user_id
      WHERE ia.issue_id = i.id), '[]'::json),
    COALESCE((SELECT json_agg(json_build_object('id', l.id, 'title', l.title, 'color', l.color, 'description', l.description,
        'projectId', l.project_id, 'groupId', l.group_id, 'priority', l.priority) ORDER BY l.title, l.id)
      FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'Issue' AND ll.target_id = i.id), '[]'::json),
    (SELECT json_build_object('id', m.id, 'iid', m.iid, 'projectId', m.project_id, 'groupId', m.group_id,
        'title', m.title, 'description', m.description, 'state', m.state, 'dueDate', m.due_date,
        'startDate', m.start_date, 'createdAt', m.created_at, 'updatedAt', m.updated_at,
        'webPath', CASE WHEN m.project_id IS NOT NULL
          THEN (SELECT wp.full_path FROM projects wp WHERE wp.id = m.project_id) || '/-/milestones/' || m.iid
          ELSE 'groups/' || (SELECT wg.full_path FROM namespaces wg WHERE wg.id = m.group_id) || '/-/milestones/' || m.iid END)
      FROM milestones m WHERE m.id = i.milestone_id),
    (SELECT count(*)::int FROM merge_requests_closing_issues c JOIN merge_requests mr ON mr.id = c.merge_request_id
      JOIN projects mp ON mp.id = mr.project_id WHERE c.issue_id = i.id AND mp.merge_requests_enabled AND true),
    (SELECT count(*)::int FROM issue_links il JOIN issues t ON t.id = il.target_id
      WHERE il.source_id = i.id AND il.link_type = 'blocks' AND t.state = 'opened'),
    EXISTS (SELECT 1 FROM notes nt WHERE nt.noteable_type = 'Issue' AND nt.noteable_id = i.id AND nt.author_id = $1 AND NOT nt.system)
  from issues i inner join projects p on p.id = i.project_id inner join namespaces n on n.id = p.namespace_id
  where i.id = ANY($2::int[])`;

/** Column counts of the tables whose `*` the statements select, to split array rows. */
const widths = {};
async function loadWidths() {
  for (const table of ["personal_access_tokens", "users", "projects", "namespaces", "project_group_links"]) {
    const { fields } = await pool.query(`select * from ${table} limit 0`);
    widths[table] = fields.map((f) => f.name);
  }
}

/** Splits an array row into objects, one per table, in the order the statement selected them. */
function split(row, tables) {
  const out = [];
  let at = 0;
  for (const table of tables) {
    const names = widths[table];
    const obj = {};
    for (let i = 0; i < names.length; i++) obj[names[i]] = row[at + i];
    out.push(obj);
    at += names.length;
  }
  out.push(row.slice(at));
  return out;
}

function query(client, text, values) {
  return client.query({ text, values, rowMode: "array" });
}

/**
 * A statement the Worker runs as a named prepared statement (functions/kernel/db.ts `preparedQuery`: the
 * token, the project row, the project lookup, the rows by id). With BARE_NAMED=1 it is named here too, so
 * that both servers plan those statements once per connection and only the transport differs; without
 * it, unnamed as `pg` sends a query by default (the baseline the targets were written against).
 */
const names = new Map();
const named = process.env.BARE_NAMED === "1";
function namedQuery(client, text, values) {
  if (!named) return query(client, text, values);
  let name = names.get(text);
  if (!name) names.set(text, (name = `bare_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`));
  return client.query({ name, text, values, rowMode: "array" });
}

const visibility = (level) => (level >= 20 ? "public" : level >= 10 ? "internal" : "private");
const iso = (value) => (value === null || value === undefined ? null : new Date(value).toISOString());
const enabled = (on) => (on ? "enabled" : "disabled");

/** The keys of projects/entities.ts `projectWithAccess`, for an admin caller. */
function present(base, p, n, o, permissions, shared) {
  const url = `${base}/${p.full_path}`;
  const api = (suffix) => `${base}/api/v4/projects/${p.id}${suffix}`;
  const isUser = n.type === "User";
  const access = (level) => (level === null || level === undefined ? null : { access_level: level, notification_level: 3 });
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: p.name_with_namespace,
    path: p.path,
    path_with_namespace: p.full_path,
    created_at: iso(p.created_at),
    default_branch: p.default_branch,
    tag_list: p.tag_list,
    topics: p.tag_list,
    ssh_url_to_repo: `git@${new URL(base).hostname}:${p.full_path}.git`,
    http_url_to_repo: `${url}.git`,
    web_url: url,
    readme_url: null,
    forks_count: p.forks_count,
    avatar_url: p.avatar_url,
    star_count: p.star_count,
    last_activity_at: iso(p.last_activity_at),
    namespace: {
      id: n.id,
      name: n.name,
      path: n.path,
      kind: isUser ? "user" : "group",
      full_path: n.full_path,
      parent_id: n.parent_id,
      avatar_url: isUser ? (o?.avatar_url ?? null) : n.avatar_url,
      web_url: isUser ? `${base}/${o?.username ?? n.path}` : `${base}/groups/${n.full_path}`,
    },
    _links: {
      self: api(""),
      ...(p.issues_enabled ? { issues: api("/issues") } : {}),
      ...(p.merge_requests_enabled ? { merge_requests: api("/merge_requests") } : {}),
      repo_branches: api("/repository/branches"),
      labels: api("/labels"),
      events: api("/events"),
      members: api("/members"),
    },
    empty_repo: p.empty_repo,
    archived: p.archived,
    visibility: visibility(p.visibility_level),
    ...(isUser && o?.id ? { owner: { id: o.id, username: o.username, name: o.name, state: o.state, avatar_url: o.avatar_url, web_url: `${base}/${o.username}` } } : {}),
    issues_enabled: p.issues_enabled,
    merge_requests_enabled: p.merge_requests_enabled,
    wiki_enabled: p.wiki_enabled,
    jobs_enabled: p.jobs_enabled,
    snippets_enabled: p.snippets_enabled,
    issues_access_level: enabled(p.issues_enabled),
    repository_access_level: "enabled",
    merge_requests_access_level: enabled(p.merge_requests_enabled),
    wiki_access_level: enabled(p.wiki_enabled),
    builds_access_level: enabled(p.jobs_enabled),
    snippets_access_level: enabled(p.snippets_enabled),
    shared_runners_enabled: p.shared_runners_enabled,
    creator_id: p.creator_id,
    import_status: "none",
    ...(p.issues_enabled ? { open_issues_count: p.open_issues_count } : {}),
    public_jobs: p.public_jobs,
    shared_with_groups: shared.map(([l, g]) => ({
      group_id: l.group_id,
      group_name: g.name,
      group_full_path: g.full_path,
      group_access_level: l.group_access,
      expires_at: l.expires_at,
    })),
    request_access_enabled: p.request_access_enabled,
    permissions: {
      project_access: access(permissions[1]),
      group_access: access(isUser ? null : permissions[2]),
    },
  };
}

/** kernel/auth.ts: the token's row and user, refused as the Worker refuses. */
async function authenticate(client, req) {
  const credential = req.headers["private-token"];
  if (!credential || credential !== token) return null;
  const digest = createHash("sha256").update(credential).digest("hex");
  const { rows } = await namedQuery(client, AUTH, [digest]);
  if (rows.length === 0) return null;
  const [t, u] = split(rows[0], ["personal_access_tokens", "users"]);
  if (t.revoked || u.state === "blocked") return null;
  return u;
}

/** The shared groups JSON column (the last value of a row) as `present` takes them. */
const sharedOf = (extra) => (extra[3] ?? []).map((s) => [{ group_id: s.groupId, group_access: s.groupAccess, expires_at: s.expiresAt }, { name: s.group.name, full_path: s.group.fullPath }]);

async function showProject(client, user, id, base) {
  if (!/^\d+$/.test(id)) return [404, { message: "404 Project Not Found" }];
  const { rows } = await namedQuery(client, PROJECT_ROW, [user.id, "User", Number(id)]);
  if (rows.length === 0) return [404, { message: "404 Project Not Found" }];
  const [p, n, o, extra] = split(rows[0], ["projects", "namespaces", "users"]);
  return [200, present(base, p, n, o, extra, sharedOf(extra))];
}

/** kernel/pagination.ts `paginate`: the offset headers and Link (totals omitted above 10,000). */
function pageHeaders(url, headers, page, perPage, offset, total) {
  const known = total <= 10_000;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const link = (n) => {
    const u = new URL(url);
    u.searchParams.set("page", String(n));
    u.searchParams.set("per_page", String(perPage));
    return u.toString();
  };
  const links = [];
  if (page > 1) links.push(`<${link(page - 1)}>; rel="prev"`);
  if (total > offset + perPage) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`);
  if (known) links.push(`<${link(totalPages)}>; rel="last"`);
  Object.assign(headers, {
    "X-Page": String(page),
    "X-Per-Page": String(perPage),
    "X-Next-Page": total > offset + perPage ? String(page + 1) : "",
    "X-Prev-Page": page > 1 ? String(page - 1) : "",
    ...(known ? { "X-Total": String(total), "X-Total-Pages": String(totalPages) } : {}),
    Link: links.join(", "),
  });
}

async function listProjects(client, user, url, base, headers) {
  const page = Math.max(1, Number(url.searchParams.get("page") || 1));
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page") || 20)));
  const offset = (page - 1) * perPage;
  const { rows } = await namedQuery(client, LIST_PAGE(offset), [user.id, "User", perPage, ...(offset > 0 ? [offset] : [])]);
  const counted = await query(client, LIST_COUNT, [Math.max(10_001, offset + perPage + 1)]);
  const total = Number(counted.rows[0][0]);
  const parts = rows.map((row) => split(row, ["projects", "namespaces", "users"]));
  pageHeaders(url, headers, page, perPage, offset, total);
  return [200, parts.map(([p, n, o, extra]) => present(base, p, n, o, extra, sharedOf(extra)))];
}


const userBasic = (base, u) => u && ({ id: u.id, username: u.username, name: u.name, state: u.state, avatar_url: u.avatarUrl, web_url: `${base}/${u.username}` });
const TASK_ITEM = /^(?:(?:>\s{0,4})*)((?:[ \t]*(?:[-+*]|(?:\d+\.)))+)[ \t]+(\[[ \t]\]|\[[xX]\])([ \t].+)/gm;

/** The keys of issues/entities.ts `issue` (API::Entities::Issue), for an admin caller in its project. */
function presentIssue(base, r) {
  const [id, iid, projectId, title, description, state, issueType, , , closedAt, , confidential, discussionLocked, dueDate, weight,
    , , , , , timeEstimate, totalTimeSpent, upvotes, downvotes, userNotesCount, , createdAt, updatedAt, , projectPath, fullPath, ,
    , author, closedBy, assignees, labels, milestone, mergeRequestsCount, blockingIssuesCount] = r;
  let count = 0;
  let completed = 0;
  for (const m of (description ?? "").matchAll(TASK_ITEM)) { count += 1; if (/x/i.test(m[2])) completed += 1; }
  const api = `${base}/api/v4/projects/${projectId}`;
  return {
    id, iid, project_id: projectId, title, description, state,
    created_at: iso(createdAt), updated_at: iso(updatedAt), closed_at: iso(closedAt),
    closed_by: userBasic(base, closedBy),
    labels: labels.map((l) => l.title).sort(),
    milestone: milestone && { id: milestone.id, iid: milestone.iid, project_id: milestone.projectId, title: milestone.title,
      description: milestone.description, state: milestone.state, created_at: iso(milestone.createdAt), updated_at: iso(milestone.updatedAt),
      due_date: milestone.dueDate, start_date: milestone.startDate, expired: false, web_url: `${base}/${milestone.webPath}` },
    assignees: assignees.map((u) => userBasic(base, u)),
    author: userBasic(base, author),
    type: issueType.toUpperCase(),
    assignee: userBasic(base, assignees[0] ?? null),
    user_notes_count: userNotesCount, merge_requests_count: mergeRequestsCount, upvotes, downvotes,
    due_date: dueDate, confidential, discussion_locked: discussionLocked, issue_type: issueType,
    web_url: `${base}/${fullPath}/-/issues/${iid}`,
    time_stats: { time_estimate: timeEstimate, total_time_spent: totalTimeSpent, human_time_estimate: null, human_total_time_spent: null },
    task_completion_status: { count, completed_count: completed },
    weight, blocking_issues_count: blockingIssuesCount,
    has_tasks: count > 0,
    ...(count > 0 ? { task_status: `${completed} of ${count} ${count === 1 ? "task" : "tasks"} completed` } : {}),
    _links: { self: `${api}/issues/${iid}`, notes: `${api}/issues/${iid}/notes`, award_emoji: `${api}/issues/${iid}/award_emoji`, project: api, closed_as_duplicate_of: null },
    references: { short: `#${iid}`, relative: `#${iid}`, full: `${fullPath}#${iid}` },
    severity: "UNKNOWN", moved_to_id: null, service_desk_reply_to: null, epic_iid: null, epic: null, iteration: null, health_status: null,
    project_path: projectPath,
  };
}

async function listProjectIssues(client, user, id, url, base, headers) {
  if (!/^\d+$/.test(id)) return [404, { message: "404 Project Not Found" }];
  const found = await namedQuery(client, LOOKUP, [Number(id), user.id]);
  if (found.rows.length === 0) return [404, { message: "404 Project Not Found" }];
  const page = Math.max(1, Number(url.searchParams.get("page") || 1));
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page") || 20)));
  const offset = (page - 1) * perPage;
  const ids = (await query(client, ISSUE_PAGE(offset), [Number(id), ISSUE_TYPES, perPage, ...(offset > 0 ? [offset] : [])])).rows.map((r) => r[0]);
  const total = Number((await query(client, ISSUE_COUNT, [Number(id), ISSUE_TYPES, Math.max(10_001, offset + perPage + 1)])).rows[0][0]);
  const rows = (await namedQuery(client, ISSUE_ROWS, [user.id, ids])).rows;
  const byId = new Map(rows.map((r) => [r[0], r]));
  pageHeaders(url, headers, page, perPage, offset, total);
  return [200, ids.map((i) => presentIssue(base, byId.get(i)))];
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, `http://${req.headers.host}`);
  const base = url.origin;
  const headers = { "Content-Type": "application/json" };
  let status = 404;
  let body = { error: "404 Not Found" };
  try {
    if (req.method === "POST" && url.pathname === "/flush-stats") {
      // Ends the pooled backends so that PostgreSQL flushes their statistics (the bench counts statements).
      const old = pool;
      pool = newPool();
      await old.end();
      res.writeHead(204).end();
      return;
    }
    const client = await pool.connect();
    try {
      const user = await authenticate(client, req);
      const show = /^\/api\/v4\/projects\/([^/]+)$/.exec(url.pathname);
      const issues = /^\/api\/v4\/projects\/([^/]+)\/issues$/.exec(url.pathname);
      if (!user) [status, body] = [401, { message: "401 Unauthorized" }];
      else if (req.method === "GET" && show) [status, body] = await showProject(client, user, show[1], base);
      else if (req.method === "GET" && issues) [status, body] = await listProjectIssues(client, user, issues[1], url, base, headers);
      else if (req.method === "GET" && url.pathname === "/api/v4/projects") [status, body] = await listProjects(client, user, url, base, headers);
    } finally {
      client.release();
    }
  } catch (error) {
    console.error(error);
    [status, body] = [500, { message: "500 Internal Server Error" }];
  }
  res.writeHead(status, headers).end(JSON.stringify(body));
});

async function stop() {
  server.close();
  server.closeAllConnections();
  await pool.end();
  for (const close of closers) await close();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

await loadWidths();
server.listen(port, "127.0.0.1", () => console.log(`BARE: http://127.0.0.1:${port}`));
