// End to end (docs/testing.md, "How `npm test` runs"): starts Edgeforge as `npm start` does (its own port,
// a throwaway DATA_DIR, embedded PGlite unless E2E_DATABASE_URL is set) and drives it over HTTP with a
// real GitLab client from npm, @gitbeaker/rest, as a GitLab user would: users, personal access tokens,
// groups and subgroups, projects, members, and pagination over several pages.
// E2E_VERBOSE=1 shows the server's own output.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Gitlab, GitbeakerRequestError } from "@gitbeaker/rest";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-e2e${randomBytes(12).toString("hex")}`;
const PASSWORD = "Edgeforge-e2e-Pass-9271";
/** Unique per run, so that a shared E2E_DATABASE_URL can be reused and lists can be filtered by it. */
const RUN = `e2e${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 30_000 };

let dataDir;
let server;
/** @type {import("@gitbeaker/rest").Gitlab} */
let api;
/** What earlier steps made; reading what a failed step never made says so, instead of a TypeError. */
const state = new Proxy(
  {},
  {
    get(target, key) {
      if (typeof key === "string" && !(key in target)) throw new Error(`an earlier step failed to make "${key}"`);
      return target[key];
    },
  },
);

/** A client for `token`, with a bounded time per request (gitbeaker's default is 300 s). */
function client(token) {
  return new Gitlab({ host: server.host, token, queryTimeout: 15_000 });
}

/** Turns gitbeaker's error into one that names the call and the server's answer. */
function explain(error) {
  if (!(error instanceof GitbeakerRequestError)) return error;
  const { request, response, description } = error.cause ?? {};
  return new Error(`${request?.method} ${request?.url} → ${response?.status} ${JSON.stringify(description)}`, { cause: error });
}

/** A test step whose gitbeaker failures say which request failed and what the server answered. */
function step(name, fn) {
  it(name, STEP, async () => {
    try {
      await fn();
    } catch (error) {
      throw explain(error);
    }
  });
}

/** Awaits a call that must fail; returns the status and gitbeaker's description (`error` or `message`). */
async function failure(promise) {
  try {
    const value = await promise;
    assert.fail(`expected an error response, got ${JSON.stringify(value)?.slice(0, 300)}`);
  } catch (error) {
    if (!(error instanceof GitbeakerRequestError)) throw error;
    return { status: error.cause.response.status, description: error.cause.description };
  }
}

/** The raw response of a GET through gitbeaker's own requester (for endpoints it has no method for). */
function rawGet(gitlab, endpoint, searchParams) {
  return gitlab.Metadata.requester.get(endpoint, { searchParams, signal: AbortSignal.timeout(15_000) });
}

function newUser(label, extra = {}) {
  const username = `${RUN}_${label}`;
  return api.Users.create({
    email: `${username}@example.com`,
    username,
    name: `${RUN} ${label}`,
    password: PASSWORD,
    skipConfirmation: true,
    ...extra,
  });
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-e2e-"));
  server = await startServer({
    dataDir,
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    timeoutMs: 90_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
  });
  api = client(ROOT_TOKEN);
});

after(async () => {
  // Safety net: the last test stops the server and asserts it; here only what is left is cleaned up.
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("Edgeforge through @gitbeaker/rest", { timeout: 170_000 }, () => {
  step("prints its API URL on the chosen port", async () => {
    assert.equal(server.apiUrl, `${server.host}/api/v4`);
  });

  step("version and metadata", async () => {
    const { body, status } = await rawGet(api, "version");
    assert.equal(status, 200);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.version.split("-")[0].split(".").length, 3);
    assert.equal(typeof body.revision, "string");
    const metadata = await api.Metadata.show();
    assert.equal(metadata.version, body.version);
    const current = await api.Users.showCurrentUser();
    assert.equal(current.id, 1);
    assert.equal(current.username, "root");
    assert.equal(current.is_admin, true);
  });

  describe("users", () => {
    step("create with a password, get", async () => {
      const user = await newUser("alice", { bio: "made by gitbeaker" });
      assert.equal(user.username, `${RUN}_alice`);
      assert.equal(user.name, `${RUN} alice`);
      assert.equal(user.state, "active");
      assert.equal(user.email, `${RUN}_alice@example.com`);
      assert.equal(user.is_admin, false);
      state.alice = user;
      const shown = await api.Users.show(user.id);
      assert.equal(shown.id, user.id);
      assert.equal(shown.username, user.username);
      assert.equal(shown.bio, "made by gitbeaker");
    });

    step("a duplicate username is a 409", async () => {
      const result = await failure(
        api.Users.create({ email: `${RUN}_other@example.com`, username: `${RUN}_alice`, name: "Dup", password: PASSWORD }),
      );
      assert.deepEqual(result, { status: 409, description: "Username has already been taken" });
    });

    step("list with username (case-insensitive) and search filters", async () => {
      state.bob = await newUser("bob");
      state.carol = await newUser("carol");
      state.dave = await newUser("dave");
      const byUsername = await api.Users.all({ username: `${RUN}_ALICE` });
      assert.deepEqual(byUsername.map((u) => u.id), [state.alice.id]);
      const bySearch = await api.Users.all({ search: RUN, orderBy: "id", sort: "asc" });
      assert.deepEqual(
        bySearch.map((u) => u.username),
        ["alice", "bob", "carol", "dave"].map((n) => `${RUN}_${n}`),
      );
    });

    step("edit (multipart form, as gitbeaker sends it)", async () => {
      const edited = await api.Users.edit(state.alice.id, { name: "Alice Edited", location: "Lisbon" });
      assert.equal(edited.name, "Alice Edited");
      assert.equal(edited.location, "Lisbon");
      assert.equal((await api.Users.show(state.alice.id)).name, "Alice Edited");
    });

    step("block and unblock", async () => {
      assert.equal(await api.Users.block(state.dave.id), true);
      assert.equal((await api.Users.show(state.dave.id)).state, "blocked");
      const blocked = await api.Users.all({ blocked: true, search: RUN });
      assert.deepEqual(blocked.map((u) => u.id), [state.dave.id]);
      assert.equal(await api.Users.unblock(state.dave.id), true);
      assert.equal((await api.Users.show(state.dave.id)).state, "active");
    });

    step("delete", async () => {
      const doomed = await newUser("doomed");
      const result = await api.Users.remove(doomed.id);
      assert.equal(result, null); // 204, no body
      assert.deepEqual(await failure(api.Users.show(doomed.id)), { status: 404, description: "404 User Not Found" });
    });
  });

  describe("personal access tokens", () => {
    step("create for a user (admin), use it, list, revoke, then 401", async () => {
      const created = await api.Users.createPersonalAccessToken(state.bob.id, "e2e token", ["api"], { expiresAt: "2099-12-31" });
      assert.match(created.token, /^glpat-/);
      assert.deepEqual(created.scopes, ["api"]);
      assert.equal(created.user_id, state.bob.id);
      assert.equal(created.revoked, false);
      assert.equal(created.expires_at, "2099-12-31");

      const bob = client(created.token);
      const me = await bob.Users.showCurrentUser();
      assert.equal(me.username, state.bob.username);
      const self = await bob.PersonalAccessTokens.show();
      assert.equal(self.id, created.id);
      assert.equal(self.token, undefined);

      const listed = await api.PersonalAccessTokens.all({ userId: state.bob.id });
      assert.ok(listed.some((t) => t.id === created.id && t.name === "e2e token"), "the admin sees bob's token");
      assert.ok(listed.every((t) => t.user_id === state.bob.id && t.token === undefined));
      const own = await bob.PersonalAccessTokens.all();
      assert.deepEqual(own.map((t) => t.id), [created.id]);

      assert.equal(await api.PersonalAccessTokens.remove({ tokenId: created.id }), null);
      assert.deepEqual(await failure(bob.Users.showCurrentUser()), { status: 401, description: "invalid_token" });
      const after = await api.PersonalAccessTokens.show({ tokenId: created.id });
      assert.equal(after.revoked, true);
    });

    step("a read_api token cannot write (403 insufficient_scope)", async () => {
      const created = await api.Users.createPersonalAccessToken(state.carol.id, "read only", ["read_api"]);
      const reader = client(created.token);
      assert.equal((await reader.Users.show(state.carol.id)).id, state.carol.id);
      assert.deepEqual(await failure(reader.Groups.create(`${RUN} ro`, `${RUN}-ro`)), {
        status: 403,
        description: "insufficient_scope",
      });
    });

    step("a blocked user's token is refused, and works again after unblock", async () => {
      const created = await api.Users.createPersonalAccessToken(state.dave.id, "dave", ["api"]);
      const dave = client(created.token);
      assert.equal((await dave.Users.showCurrentUser()).id, state.dave.id);
      await api.Users.block(state.dave.id);
      assert.deepEqual(await failure(dave.Users.showCurrentUser()), {
        status: 403,
        description: "403 Forbidden - Your account has been blocked.",
      });
      await api.Users.unblock(state.dave.id);
      assert.equal((await dave.Users.showCurrentUser()).id, state.dave.id);
    });

    step("tokens for the users of the next steps", async () => {
      for (const name of ["alice", "bob", "carol"]) {
        const { token } = await api.Users.createPersonalAccessToken(state[name].id, "e2e", ["api"]);
        state[`${name}Api`] = client(token);
      }
    });
  });

  describe("groups", () => {
    step("create, subgroup, get by id and by path", async () => {
      const group = await api.Groups.create(`${RUN} Group`, `${RUN}-grp`, { visibility: "private", description: "top" });
      assert.equal(group.name, `${RUN} Group`);
      assert.equal(group.path, `${RUN}-grp`);
      assert.equal(group.full_path, `${RUN}-grp`);
      assert.equal(group.visibility, "private");
      assert.equal(group.parent_id, null);
      state.group = group;

      const sub = await api.Groups.create(`${RUN} Sub`, "sub", { parentId: group.id, visibility: "private" });
      assert.equal(sub.parent_id, group.id);
      assert.equal(sub.full_path, `${RUN}-grp/sub`);
      assert.equal(sub.full_name, `${RUN} Group / ${RUN} Sub`);
      state.sub = sub;

      assert.equal((await api.Groups.show(group.id)).full_path, `${RUN}-grp`);
      assert.equal((await api.Groups.show(`${RUN}-grp/sub`)).id, sub.id); // gitbeaker sends grp%2Fsub
    });

    step("a duplicate path is a 400", async () => {
      assert.deepEqual(await failure(api.Groups.create("again", `${RUN}-grp`)), {
        status: 400,
        description: 'Failed to save group {:path=>["has already been taken"]}',
      });
    });

    step("list with search, subgroups, descendants", async () => {
      const all = await api.Groups.all({ search: RUN });
      assert.deepEqual(all.map((g) => g.id).sort((a, b) => a - b), [state.group.id, state.sub.id]);
      const top = await api.Groups.all({ search: RUN, topLevelOnly: true });
      assert.deepEqual(top.map((g) => g.id), [state.group.id]);
      assert.deepEqual((await api.Groups.allSubgroups(state.group.id)).map((g) => g.id), [state.sub.id]);
      assert.deepEqual((await api.Groups.allDescendantGroups(state.group.id)).map((g) => g.id), [state.sub.id]);
      // alice is not a member: the private group is missing for her.
      assert.deepEqual(await state.aliceApi.Groups.all({ search: RUN }), []);
      assert.deepEqual(await failure(state.aliceApi.Groups.show(state.group.id)), { status: 404, description: "404 Group Not Found" });
    });

    step("edit", async () => {
      const edited = await api.Groups.edit(state.group.id, { description: "edited by gitbeaker", visibility: "internal" });
      assert.equal(edited.description, "edited by gitbeaker");
      assert.equal(edited.visibility, "internal");
      // internal: now any signed-in user reads it.
      assert.equal((await state.aliceApi.Groups.show(state.group.id)).id, state.group.id);
    });

    step("delete", async () => {
      const doomed = await api.Groups.create(`${RUN} Doomed`, `${RUN}-doomed`);
      assert.deepEqual(await api.Groups.remove(doomed.id), { message: "202 Accepted" });
      assert.deepEqual(await failure(api.Groups.show(doomed.id)), { status: 404, description: "404 Group Not Found" });
    });
  });

  describe("projects", () => {
    step("create in a subgroup and personal", async () => {
      const project = await api.Projects.create({
        name: `${RUN} Proj`,
        path: "proj",
        namespaceId: state.sub.id,
        visibility: "private",
        description: "in a subgroup",
      });
      assert.equal(project.path_with_namespace, `${RUN}-grp/sub/proj`);
      assert.equal(project.name_with_namespace, `${RUN} Group / ${RUN} Sub / ${RUN} Proj`);
      assert.equal(project.namespace.id, state.sub.id);
      assert.equal(project.namespace.kind, "group");
      assert.equal(project.visibility, "private");
      assert.equal(project.archived, false);
      state.project = project;

      const personal = await state.aliceApi.Projects.create({ name: `${RUN} Mine`, path: `${RUN}-mine` });
      assert.equal(personal.path_with_namespace, `${state.alice.username}/${RUN}-mine`);
      assert.equal(personal.namespace.kind, "user");
      assert.equal(personal.creator_id, state.alice.id);
      state.personal = personal;

      const forBob = await api.Projects.create({ userId: state.bob.id, name: `${RUN} For Bob`, path: `${RUN}-for-bob` });
      assert.equal(forBob.path_with_namespace, `${state.bob.username}/${RUN}-for-bob`);
      assert.equal(forBob.namespace.kind, "user");
      state.forBob = forBob;
    });

    step("get by id and by full path", async () => {
      const byId = await api.Projects.show(state.project.id);
      assert.equal(byId.path_with_namespace, `${RUN}-grp/sub/proj`);
      const byPath = await api.Projects.show(`${RUN}-grp/sub/proj`); // gitbeaker sends grp%2Fsub%2Fproj
      assert.equal(byPath.id, state.project.id);
      // bob is no member of alice's private project.
      assert.deepEqual(await failure(state.bobApi.Projects.show(state.personal.id)), {
        status: 404,
        description: "404 Project Not Found",
      });
    });

    step("list with filters", async () => {
      const searched = await api.Projects.all({ search: RUN, orderBy: "id", sort: "asc", simple: true });
      assert.deepEqual(searched.map((p) => p.id), [state.project.id, state.personal.id, state.forBob.id]);
      assert.equal(searched[0].path_with_namespace, `${RUN}-grp/sub/proj`);
      const owned = await state.aliceApi.Projects.all({ owned: true });
      assert.deepEqual(owned.map((p) => p.id), [state.personal.id]);
      const membership = await state.bobApi.Projects.all({ membership: true });
      assert.deepEqual(membership.map((p) => p.id), [state.forBob.id]);
      const privateOnes = await api.Projects.all({ search: `${RUN} Proj`, visibility: "private" });
      assert.deepEqual(privateOnes.map((p) => p.id), [state.project.id]);
      const inGroup = await api.Groups.allProjects(state.group.id, { includeSubgroups: true });
      assert.deepEqual(inGroup.map((p) => p.id), [state.project.id]);
      assert.deepEqual(await api.Groups.allProjects(state.group.id), []); // not in the group itself
    });

    step("edit", async () => {
      const edited = await api.Projects.edit(state.project.id, { name: `${RUN} Renamed`, description: "edited" });
      assert.equal(edited.name, `${RUN} Renamed`);
      assert.equal(edited.description, "edited");
      assert.equal(edited.name_with_namespace, `${RUN} Group / ${RUN} Sub / ${RUN} Renamed`);
      assert.equal(edited.path_with_namespace, `${RUN}-grp/sub/proj`);
    });

    step("archive and unarchive", async () => {
      assert.equal((await api.Projects.archive(state.project.id)).archived, true);
      const archived = await api.Projects.all({ search: RUN, archived: true });
      assert.deepEqual(archived.map((p) => p.id), [state.project.id]);
      assert.equal((await api.Projects.unarchive(state.project.id)).archived, false);
      assert.deepEqual(await api.Projects.all({ search: RUN, archived: true }), []);
    });

    step("share with a group, then unshare", async () => {
      const other = await api.Groups.create(`${RUN} Partners`, `${RUN}-partners`);
      state.partners = other;
      await api.Projects.share(state.personal.id, other.id, 30);
      const shown = await api.Projects.show(state.personal.id);
      assert.deepEqual(
        shown.shared_with_groups.map((g) => [g.group_id, g.group_access_level, g.group_full_path]),
        [[other.id, 30, `${RUN}-partners`]],
      );
      const shared = await api.Groups.allSharedProjects(other.id);
      assert.deepEqual(shared.map((p) => p.id), [state.personal.id]);
      assert.equal(await api.Projects.unshare(state.personal.id, other.id), null);
      assert.deepEqual((await api.Projects.show(state.personal.id)).shared_with_groups, []);
      assert.deepEqual(await api.Groups.allSharedProjects(other.id), []);
    });

    step("delete", async () => {
      const doomed = await api.Projects.create({ name: `${RUN} Doomed`, namespaceId: state.group.id });
      assert.deepEqual(await api.Projects.remove(doomed.id), { message: "202 Accepted" });
      assert.deepEqual(await failure(api.Projects.show(doomed.id)), { status: 404, description: "404 Project Not Found" });
    });
  });

  describe("members", () => {
    step("add one, and several at once; a duplicate is a 409", async () => {
      const member = await api.GroupMembers.add(state.group.id, 30, { userId: state.alice.id });
      assert.equal(member.id, state.alice.id);
      assert.equal(member.username, state.alice.username);
      assert.equal(member.access_level, 30);
      const several = await api.GroupMembers.add(state.group.id, 20, {
        userId: `${state.bob.id},${state.carol.id}`,
        expiresAt: "2099-01-31",
      });
      assert.deepEqual(several, { status: "success" });
      assert.deepEqual(await failure(api.GroupMembers.add(state.group.id, 30, { userId: state.alice.id })), {
        status: 409,
        description: "Member already exists",
      });
    });

    step("list direct members, with query", async () => {
      const members = await api.GroupMembers.all(state.group.id);
      const levels = Object.fromEntries(members.map((m) => [m.username, [m.access_level, m.expires_at]]));
      assert.deepEqual(levels, {
        root: [50, null], // the creator is an owner
        [state.alice.username]: [30, null],
        [state.bob.username]: [20, "2099-01-31"],
        [state.carol.username]: [20, "2099-01-31"],
      });
      const queried = await api.GroupMembers.all(state.group.id, { query: state.alice.username });
      assert.deepEqual(queried.map((m) => m.id), [state.alice.id]);
      const shown = await api.GroupMembers.show(state.group.id, state.bob.id);
      assert.equal(shown.access_level, 20);
    });

    step("all: inherited members, the highest level per user", async () => {
      await api.GroupMembers.add(state.sub.id, 40, { userId: state.bob.id });
      assert.deepEqual((await api.GroupMembers.all(state.sub.id)).map((m) => m.username).sort(), [state.bob.username, "root"].sort());
      const all = await api.GroupMembers.all(state.sub.id, { includeInherited: true });
      const levels = Object.fromEntries(all.map((m) => [m.username, m.access_level]));
      assert.deepEqual(levels, {
        root: 50,
        [state.alice.username]: 30,
        [state.bob.username]: 40,
        [state.carol.username]: 20,
      });
      const inherited = await api.GroupMembers.show(state.sub.id, state.alice.id, { includeInherited: true });
      assert.equal(inherited.access_level, 30);
      assert.deepEqual(await failure(api.GroupMembers.show(state.sub.id, state.alice.id)), { status: 404, description: "404 Not found" });

      // Project members: direct, and /all with the groups above the project.
      await api.ProjectMembers.add(state.project.id, 40, { userId: state.carol.id });
      assert.deepEqual((await api.ProjectMembers.all(state.project.id)).map((m) => m.id), [state.carol.id]);
      const projectAll = await api.ProjectMembers.all(state.project.id, { includeInherited: true });
      const projectLevels = Object.fromEntries(projectAll.map((m) => [m.username, m.access_level]));
      assert.deepEqual(projectLevels, {
        root: 50,
        [state.alice.username]: 30,
        [state.bob.username]: 40,
        [state.carol.username]: 40,
      });
      // Membership opens the private project to alice.
      assert.equal((await state.aliceApi.Projects.show(state.project.id)).id, state.project.id);
    });

    step("edit", async () => {
      const edited = await api.GroupMembers.edit(state.group.id, state.alice.id, 40, { expiresAt: "2099-06-30" });
      assert.equal(edited.access_level, 40);
      assert.equal(edited.expires_at, "2099-06-30");
      assert.equal((await api.GroupMembers.show(state.group.id, state.alice.id)).access_level, 40);
      const projectEdited = await api.ProjectMembers.edit(state.project.id, state.carol.id, 20);
      assert.equal(projectEdited.access_level, 20);
    });

    step("remove", async () => {
      // A project member alone.
      await api.ProjectMembers.add(state.project.id, 30, { userId: state.dave.id });
      assert.equal(await api.ProjectMembers.remove(state.project.id, state.dave.id), null);
      assert.deepEqual((await api.ProjectMembers.all(state.project.id)).map((m) => m.id), [state.carol.id]);
      assert.deepEqual(await failure(api.ProjectMembers.show(state.project.id, state.dave.id)), { status: 404, description: "404 Not found" });

      // A group member: as GitLab (skip_subresources defaults to false), also her direct memberships below.
      assert.equal(await api.GroupMembers.remove(state.group.id, state.carol.id), null);
      assert.deepEqual(await failure(api.GroupMembers.show(state.group.id, state.carol.id)), { status: 404, description: "404 Not found" });
      const left = await api.GroupMembers.all(state.group.id);
      assert.ok(!left.some((m) => m.id === state.carol.id));
      assert.deepEqual(await api.ProjectMembers.all(state.project.id), []);
      // No longer a member anywhere above: the private project is gone for carol.
      assert.deepEqual(await failure(state.carolApi.Projects.show(state.project.id)), {
        status: 404,
        description: "404 Project Not Found",
      });
    });
  });

  describe("pagination", () => {
    step("25 projects over pages of 10, following Link rel=next", async () => {
      const group = await api.Groups.create(`${RUN} Many`, `${RUN}-many`);
      state.many = group;
      const created = [];
      for (let i = 0; i < 25; i += 5) {
        const batch = await Promise.all(
          Array.from({ length: 5 }, (_, j) =>
            api.Projects.create({ name: `${RUN}pg${String(i + j).padStart(2, "0")}`, namespaceId: group.id }),
          ),
        );
        created.push(...batch.map((p) => p.id));
      }
      const expected = [...created].sort((a, b) => a - b);

      // Default: gitbeaker follows every `next` link.
      const all = await api.Groups.allProjects(group.id, { perPage: 10 });
      assert.equal(all.length, 25);
      assert.deepEqual(all.map((p) => p.id).sort((a, b) => a - b), expected);

      // With the pagination info of the last page.
      const expanded = await api.Groups.allProjects(group.id, { perPage: 10, orderBy: "id", sort: "asc", showExpanded: true });
      assert.deepEqual(expanded.data.map((p) => p.id), expected);
      assert.deepEqual(expanded.paginationInfo, { total: 25, next: null, current: 3, previous: 2, perPage: 10, totalPages: 3 });

      // maxPages stops early.
      const two = await api.Groups.allProjects(group.id, { perPage: 10, orderBy: "id", sort: "asc", maxPages: 2 });
      assert.deepEqual(two.map((p) => p.id), expected.slice(0, 20));

      // One explicit page.
      const page2 = await api.Groups.allProjects(group.id, { perPage: 10, page: 2, orderBy: "id", sort: "asc", showExpanded: true });
      assert.deepEqual(page2.data.map((p) => p.id), expected.slice(10, 20));
      assert.deepEqual(page2.paginationInfo, { total: 25, next: 3, current: 2, previous: 1, perPage: 10, totalPages: 3 });
    });

    step("the filters survive in the Link of GET /projects", async () => {
      const searched = await api.Projects.all({ search: `${RUN}pg`, perPage: 10, orderBy: "name", sort: "asc", showExpanded: true });
      assert.deepEqual(
        searched.data.map((p) => p.name),
        Array.from({ length: 25 }, (_, i) => `${RUN}pg${String(i).padStart(2, "0")}`),
      );
      assert.equal(searched.paginationInfo.total, 25);
      assert.equal(searched.paginationInfo.totalPages, 3);

      const { headers } = await rawGet(api, "projects", { search: `${RUN}pg`, per_page: 10, page: 2, order_by: "name", sort: "asc" });
      assert.equal(headers["x-total"], "25");
      assert.equal(headers["x-total-pages"], "3");
      assert.equal(headers["x-page"], "2");
      assert.equal(headers["x-per-page"], "10");
      assert.equal(headers["x-next-page"], "3");
      assert.equal(headers["x-prev-page"], "1");
      const next = /<([^>]+)>; rel="next"/.exec(headers.link)?.[1];
      assert.ok(next, `a next link in ${headers.link}`);
      const nextUrl = new URL(next);
      assert.equal(nextUrl.origin, server.host);
      assert.equal(nextUrl.searchParams.get("search"), `${RUN}pg`);
      assert.equal(nextUrl.searchParams.get("page"), "3");
    });

    step("group members over pages", async () => {
      const users = [];
      for (let i = 0; i < 12; i += 4) {
        users.push(...(await Promise.all(Array.from({ length: 4 }, (_, j) => newUser(`m${i + j}`)))));
      }
      await api.GroupMembers.add(state.many.id, 30, { userId: users.map((u) => u.id).join(",") });
      const members = await api.GroupMembers.all(state.many.id, { perPage: 5, showExpanded: true });
      assert.equal(members.data.length, 13); // the 12 and root, the creator
      assert.equal(new Set(members.data.map((m) => m.id)).size, 13);
      assert.equal(members.paginationInfo.total, 13);
      assert.equal(members.paginationInfo.totalPages, 3);
    });
  });

  it("stops on SIGINT, and the port closes", { timeout: 30_000 }, async () => {
    const { code, signal, forced } = await server.stop(20_000);
    assert.equal(forced, false, `the server did not exit within 20 s of SIGINT; its output:\n${server.output().slice(-3000)}`);
    assert.equal(signal, null);
    assert.equal(code, 0);
    await assert.rejects(fetch(`${server.host}/api/v4/version`, { signal: AbortSignal.timeout(3000) }));
  });
});
