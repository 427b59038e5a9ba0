import { beforeAll, describe, expect, it } from "vitest";
import { issueAssignees, issues, mergeRequestAssignees, mergeRequests, snippets } from "../../db/schema";
import type { Client } from "../helpers/client";
import { world, type TestProject, type TestUser, type World } from "../helpers/world";

/**
 * Each read rule of shared/issuables/policy.ts exists twice: the TypeScript predicate that a single
 * read asks (`GET …/issues/:iid` → 200 or 404) and the SQL condition a list uses. This table walks
 * every role × project visibility × confidentiality (or snippet visibility) and checks that both
 * agree: a row is in the list exactly when its single read answers 200.
 */

type Visibility = "public" | "internal" | "private";
const VISIBILITIES: Visibility[] = ["public", "internal", "private"];
const ROLES = ["anonymous", "non-member", "guest", "reporter", "developer", "maintainer", "owner", "admin", "external", "author", "assignee"] as const;
type RoleName = (typeof ROLES)[number];

type Fixture = {
  project: TestProject;
  issues: { iid: number; confidential: boolean }[];
  mergeRequests: { iid: number }[];
  snippets: { id: number; visibility: Visibility }[];
};

const LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

let w: World;
let authorId = 0;
const clients = {} as Record<RoleName, Client>;
const fixtures: Fixture[] = [];

beforeAll(async () => {
  w = await world();
  const [guest, reporter, developer, maintainer, owner, admin, external, author, assignee] = await Promise.all([
    w.user(),
    w.user(),
    w.user(),
    w.user(),
    w.user(),
    w.user({ admin: true }),
    w.user({ external: true }),
    w.user(),
    w.user(),
  ]);
  const users: Record<Exclude<RoleName, "anonymous">, TestUser> = {
    "non-member": w.stranger,
    guest,
    reporter,
    developer,
    maintainer,
    owner,
    admin,
    external,
    author,
    assignee,
  };
  authorId = author.id;
  clients.anonymous = w.anonymous;
  for (const [role, user] of Object.entries(users)) clients[role as RoleName] = w.as(user);

  for (const visibility of VISIBILITIES) {
    // The author and the assignee are guests: the level where authorship and assignment matter.
    const project = await w.project({
      visibility,
      owner,
      guests: [guest, author, assignee],
      reporters: [reporter],
      developers: [developer],
      maintainers: [maintainer],
    });
    const fixture = await w.db(async (db) => {
      const made = await db
        .insert(issues)
        .values([false, true].map((confidential, i) => ({ iid: i + 1, projectId: project.id, title: `issue ${i}`, authorId: author.id, confidential })))
        .returning();
      await db.insert(issueAssignees).values(made.map((row) => ({ issueId: row.id, userId: assignee.id })));
      const mrs = await db
        .insert(mergeRequests)
        .values([
          { iid: 1, projectId: project.id, sourceProjectId: project.id, title: "by author", sourceBranch: "a", targetBranch: "main", authorId: author.id },
          { iid: 2, projectId: project.id, sourceProjectId: project.id, title: "by owner", sourceBranch: "b", targetBranch: "main", authorId: owner.id },
        ])
        .returning();
      await db.insert(mergeRequestAssignees).values({ mergeRequestId: mrs[1].id, userId: assignee.id });
      const snips = await db
        .insert(snippets)
        .values(VISIBILITIES.map((v) => ({ projectId: project.id, authorId: author.id, title: `snippet ${v}`, fileName: "a.txt", content: "x", visibilityLevel: LEVEL[v] })))
        .returning();
      return {
        project,
        issues: made.map((row) => ({ iid: row.iid, confidential: row.confidential })),
        mergeRequests: mrs.map((row) => ({ iid: row.iid })),
        snippets: snips.map((row, i) => ({ id: row.id, visibility: VISIBILITIES[i] })),
      };
    });
    fixtures.push(fixture);
  }
});

/** The keys a list answers (none when the list itself is refused). */
async function listed(client: Client, path: string, key: "iid" | "id"): Promise<number[]> {
  const res = await client.get(path, { query: { per_page: 100 } });
  if (res.status !== 200) return [];
  return ((await res.json()) as Record<string, number>[]).map((row) => row[key]).sort();
}

/** The keys whose single read answers 200. */
async function readable(client: Client, base: string, keys: number[]): Promise<number[]> {
  const statuses = await Promise.all(keys.map(async (key) => [key, (await client.get(`${base}/${key}`)).status] as const));
  for (const [, status] of statuses) expect([200, 401, 403, 404]).toContain(status);
  return statuses.filter(([, status]) => status === 200).map(([key]) => key).sort();
}

describe("read rules: the predicate and the list's SQL agree", () => {
  it.each(ROLES)("issues, for %s", async (role) => {
    const seen: string[] = [];
    for (const f of fixtures) {
      const base = `/projects/${f.project.id}/issues`;
      const single = await readable(clients[role], base, f.issues.map((i) => i.iid));
      expect([`${f.project.path}`, await listed(clients[role], base, "iid")]).toEqual([`${f.project.path}`, single]);
      seen.push(...single.map((iid) => `${f.project.id}#${iid}`));
    }
    // The global list uses the same SQL across projects.
    const global = role === "anonymous" ? null : await clients[role].get("/issues", { query: { scope: "all", author_id: authorId, per_page: 100 } });
    if (global) {
      const ids = new Set(fixtures.map((f) => f.project.id));
      const rows = ((await global.json()) as { project_id: number; iid: number }[]).filter((row) => ids.has(row.project_id));
      expect(rows.map((row) => `${row.project_id}#${row.iid}`).sort()).toEqual(seen.sort());
    }
  });

  it.each(ROLES)("merge requests, for %s", async (role) => {
    for (const [i, f] of fixtures.entries()) {
      const base = `/projects/${f.project.id}/merge_requests`;
      const single = await readable(clients[role], base, f.mergeRequests.map((m) => m.iid));
      // GitLab's own exception, kept: IssuablePolicy lets a guest read the merge request they wrote or
      // are assigned to, but MergeRequestsFinder lists a private project's merge requests only from
      // reporter up (`with_feature_available_for_user`, merge requests need reporter there).
      const guestOwn = VISIBILITIES[i] === "private" && (role === "author" || role === "assignee");
      if (guestOwn) expect(single).toEqual([role === "author" ? 1 : 2]);
      expect([`${f.project.path}`, await listed(clients[role], base, "iid")]).toEqual([`${f.project.path}`, guestOwn ? [] : single]);
    }
  });

  it.each(ROLES)("snippets, for %s", async (role) => {
    for (const f of fixtures) {
      const base = `/projects/${f.project.id}/snippets`;
      const single = await readable(clients[role], base, f.snippets.map((s) => s.id));
      expect([`${f.project.path}`, await listed(clients[role], base, "id")]).toEqual([`${f.project.path}`, single]);
    }
  });

  it("is not vacuous: admins read everything, anonymous callers nothing private", async () => {
    const [pub, , priv] = fixtures;
    expect(await readable(clients.admin, `/projects/${priv.project.id}/issues`, [1, 2])).toEqual([1, 2]);
    expect(await readable(clients.anonymous, `/projects/${pub.project.id}/issues`, [1, 2])).toEqual([1]);
    expect(await readable(clients.anonymous, `/projects/${priv.project.id}/issues`, [1, 2])).toEqual([]);
    expect(await readable(clients.assignee, `/projects/${priv.project.id}/issues`, [1, 2])).toEqual([1, 2]);
    expect(await readable(clients.guest, `/projects/${priv.project.id}/issues`, [1, 2])).toEqual([1]);
  });
});
