import { beforeAll, describe, expect, it } from "vitest";
import { request, type Client } from "../helpers/client";
import { unique, world, type TestGroup, type TestProject, type TestUser, type World } from "../helpers/world";
import { ok } from "./matrix";

/**
 * The authorization matrix for what belongs to a user rather than to a project: events,
 * a user's projects, personal snippets, user status, emails, GPG keys, impersonation tokens, custom
 * attributes, issue statistics. The callers are anonymous, another user, the user themselves ("self")
 * and an administrator; every expected status comes from the row's `rule` (one table, one rule):
 * - `anyone`: readable without signing in (lib/api/users.rb `find_user` + `read_user`);
 * - `signedIn`: `authenticate!`, the caller acts on their own account (`/user/...`);
 * - `admin`: `authenticated_as_admin!` (401 anonymous, 403 any other user, the user themselves too);
 * - `ownerOrAdmin`: a private personal snippet: who may not read it gets 404 (SnippetsFinder), a write
 *   by an anonymous caller 401;
 * - `author`: a write to a personal snippet looks it up among the caller's own
 *   (`snippets_for_current_user`, `author: current_user`): anyone else is 404, administrators too.
 */
type Caller = "anonymous" | "other" | "self" | "admin";
const CALLERS: Caller[] = ["anonymous", "other", "self", "admin"];
type Rule = "anyone" | "signedIn" | "admin" | "ownerOrAdmin" | "author";

type Fixture = {
  self: TestUser;
  privateSnippetId: number;
  publicSnippetId: number;
  project: TestProject;
  group: TestGroup;
};

type Row = {
  name: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: (f: Fixture) => string;
  body?: () => Record<string, unknown>;
  /** A multipart body instead of JSON (avatars). */
  multipart?: () => FormData;
  rule: Rule;
  ok: number;
};

function expected(row: Row, caller: Caller): number {
  const write = row.method !== "GET";
  switch (row.rule) {
    case "anyone":
      return caller === "anonymous" && write ? 401 : row.ok;
    case "signedIn":
      return caller === "anonymous" ? 401 : row.ok;
    case "admin":
      return caller === "anonymous" ? 401 : caller === "admin" ? row.ok : 403;
    case "ownerOrAdmin":
      if (caller === "anonymous") return write ? 401 : 404;
      return caller === "other" ? 404 : row.ok;
    case "author":
      if (caller === "anonymous") return 401;
      return caller === "self" ? row.ok : 404;
  }
}

const U = (f: Fixture) => `/users/${f.self.id}`;

/** A 1×1 PNG as an `avatar` field, with other fields. */
function avatarForm(fields: Record<string, string> = {}): FormData {
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (ch) => ch.charCodeAt(0));
  const form = new FormData();
  form.append("avatar", new File([png], "avatar.png", { type: "image/png" }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

/** THE table. */
const ROWS: Row[] = [
  // lib/api/events.rb: `/events` is the caller's (authenticate!); a user's events are public unless the
  // profile is private.
  { name: "own events", method: "GET", path: () => `/events`, rule: "signedIn", ok: 200 },
  { name: "user events", method: "GET", path: (f) => `${U(f)}/events`, rule: "anyone", ok: 200 },
  { name: "user projects", method: "GET", path: (f) => `${U(f)}/projects`, rule: "anyone", ok: 200 },
  // lib/api/snippets.rb
  { name: "list own snippets", method: "GET", path: () => `/snippets`, rule: "signedIn", ok: 200 },
  { name: "list public snippets", method: "GET", path: () => `/snippets/public`, rule: "signedIn", ok: 200 },
  { name: "private snippet", method: "GET", path: (f) => `/snippets/${f.privateSnippetId}`, rule: "ownerOrAdmin", ok: 200 },
  { name: "private snippet raw", method: "GET", path: (f) => `/snippets/${f.privateSnippetId}/raw`, rule: "ownerOrAdmin", ok: 200 },
  { name: "update private snippet", method: "PUT", path: (f) => `/snippets/${f.privateSnippetId}`, body: () => ({ title: unique("t") }), rule: "author", ok: 200 },
  { name: "public snippet", method: "GET", path: (f) => `/snippets/${f.publicSnippetId}`, rule: "anyone", ok: 200 },
  { name: "public snippet file raw", method: "GET", path: (f) => `/snippets/${f.publicSnippetId}/files/main/a.txt/raw`, rule: "anyone", ok: 200 },
  { name: "update public snippet", method: "PUT", path: (f) => `/snippets/${f.publicSnippetId}`, body: () => ({ title: unique("t") }), rule: "author", ok: 200 },
  { name: "snippet user agent detail", method: "GET", path: (f) => `/snippets/${f.publicSnippetId}/user_agent_detail`, rule: "admin", ok: 200 },
  // lib/api/users.rb: status
  { name: "own status", method: "GET", path: () => `/user/status`, rule: "signedIn", ok: 200 },
  { name: "set own status", method: "PUT", path: () => `/user/status`, body: () => ({ message: "busy" }), rule: "signedIn", ok: 200 },
  { name: "user status", method: "GET", path: (f) => `/users/${f.self.id}/status`, rule: "anyone", ok: 200 },
  // emails
  { name: "own emails", method: "GET", path: () => `/user/emails`, rule: "signedIn", ok: 200 },
  { name: "add own email", method: "POST", path: () => `/user/emails`, body: () => ({ email: `${unique("e")}@example.com` }), rule: "signedIn", ok: 201 },
  { name: "user emails", method: "GET", path: (f) => `${U(f)}/emails`, rule: "admin", ok: 200 },
  { name: "add user email", method: "POST", path: (f) => `${U(f)}/emails`, body: () => ({ email: `${unique("e")}@example.com` }), rule: "admin", ok: 201 },
  // GPG keys: a user's are public.
  { name: "own GPG keys", method: "GET", path: () => `/user/gpg_keys`, rule: "signedIn", ok: 200 },
  { name: "user GPG keys", method: "GET", path: (f) => `${U(f)}/gpg_keys`, rule: "anyone", ok: 200 },
  // impersonation tokens, memberships: administrators.
  { name: "impersonation tokens", method: "GET", path: (f) => `${U(f)}/impersonation_tokens`, rule: "admin", ok: 200 },
  { name: "create impersonation token", method: "POST", path: (f) => `${U(f)}/impersonation_tokens`, body: () => ({ name: unique("it"), scopes: ["read_user"] }), rule: "admin", ok: 201 },
  { name: "user memberships", method: "GET", path: (f) => `${U(f)}/memberships`, rule: "admin", ok: 200 },
  // lib/api/custom_attributes_endpoints.rb: `authenticated_as_admin!` before the owner is looked up.
  { name: "user custom attributes", method: "GET", path: (f) => `${U(f)}/custom_attributes`, rule: "admin", ok: 200 },
  { name: "set user custom attribute", method: "PUT", path: (f) => `${U(f)}/custom_attributes/k`, body: () => ({ value: "v" }), rule: "admin", ok: 200 },
  { name: "project custom attributes", method: "GET", path: (f) => `/projects/${f.project.id}/custom_attributes`, rule: "admin", ok: 200 },
  { name: "group custom attributes", method: "GET", path: (f) => `/groups/${f.group.id}/custom_attributes`, rule: "admin", ok: 200 },
  // lib/api/issues.rb: `authenticate! unless params[:scope] == 'all'`.
  { name: "issues statistics", method: "GET", path: () => `/issues_statistics`, rule: "signedIn", ok: 200 },
  { name: "issues statistics, scope all", method: "GET", path: () => `/issues_statistics?scope=all`, rule: "anyone", ok: 200 },
  // lib/api/avatar.rb: no `authenticate!`; `read_users_list` (anonymous callers too while the public level is not restricted).
  { name: "avatar by e-mail", method: "GET", path: (f) => `/avatar?email=${encodeURIComponent(f.self.email)}`, rule: "anyone", ok: 200 },
  // lib/api/users.rb POST/PUT users (`authenticated_as_admin!`) with an avatar.
  { name: "update user avatar", method: "PUT", path: (f) => U(f), multipart: () => avatarForm(), rule: "admin", ok: 200 },
  {
    name: "create user with avatar",
    method: "POST",
    path: () => `/users`,
    multipart: () => {
      const name = unique("av").replace(/-/g, "_");
      return avatarForm({ username: name, name, email: `${name}@example.com`, password: `Pw-${unique("x")}`, skip_confirmation: "true" });
    },
    rule: "admin",
    ok: 201,
  },
];

describe("authorization matrix: what belongs to users", () => {
  let w: World;
  let f: Fixture;
  const clients = {} as Record<Caller, Client>;

  beforeAll(async () => {
    w = await world();
    const [self, other, admin] = await Promise.all([w.user(), w.user(), w.user({ admin: true })]);
    Object.assign(clients, { anonymous: w.anonymous, other: w.as(other), self: w.as(self), admin: w.as(admin) });
    const snippet = (visibility: string) =>
      request("POST", "/snippets", self.token, { json: { title: "s", file_name: "a.txt", content: "x", visibility }, headers: { "User-Agent": "matrix/1.0" } }).then((r) =>
        ok<{ id: number }>(r, 201, "snippet"),
      );
    const [priv, pub, project, group] = await Promise.all([snippet("private"), snippet("public"), w.project({ owner: self }), w.group({ owners: [self] })]);
    f = { self, privateSnippetId: priv.id, publicSnippetId: pub.id, project, group };
  });

  it(`${CALLERS.length} callers × ${ROWS.length} endpoints`, { timeout: 300_000 }, async () => {
    const actual: string[] = [];
    const wanted: string[] = [];
    for (const row of ROWS) {
      await Promise.all(
        CALLERS.map(async (caller) => {
          const res = await request(row.method, row.path(f), clients[caller].token, row.multipart ? { multipart: row.multipart() } : row.body ? { json: row.body() } : {});
          await res.arrayBuffer();
          actual.push(`${row.name} | ${caller}: ${res.status}`);
          wanted.push(`${row.name} | ${caller}: ${expected(row, caller)}`);
        }),
      );
    }
    expect(actual.sort()).toEqual(wanted.sort());
  });
});
