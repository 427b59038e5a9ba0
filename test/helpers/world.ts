import { env } from "cloudflare:test";
import { createDb } from "../../functions/kernel/db";
import { generateToken, sha256Hex } from "../../functions/kernel/auth";
import { issueAssignees, issues, members, namespaces, personalAccessTokens, projects, users } from "../../db/schema";
import { nextIid } from "../../functions/shared/issuables/iids";
import { eq } from "drizzle-orm";
import { client, type Client } from "./client";

/**
 * Test data made directly in the database (fast, and independent of the endpoints under test), with
 * unique names so that tests run in parallel without seeing each other.
 */
export type TestUser = { id: number; username: string; name: string; email: string; token: string; namespaceId: number };
export type TestGroup = { id: number; path: string; fullPath: string; name: string };
export type TestProject = { id: number; path: string; fullPath: string; name: string; namespaceId: number };
export type TestIssue = { id: number; iid: number; projectId: number };
export type IssueOptions = {
  title?: string;
  /** The author's id (null: none). */
  authorId?: number | null;
  confidential?: boolean;
  issueType?: "issue" | "incident";
  assigneeIds?: number[];
  locked?: boolean;
};
export type Role = "guest" | "reporter" | "developer" | "maintainer" | "owner";
export const ROLE_LEVEL: Record<Role, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
type Visibility = "private" | "internal" | "public";
const LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

let counter = 0;
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}-${counter}`;
}

type Db = ReturnType<typeof createDb>["db"];

async function withTestDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const { db, pool } = createDb(env as never);
  try {
    return await fn(db);
  } finally {
    await pool.end();
  }
}

export type RoleMembers = Partial<Record<`${Role}s`, TestUser[]>>;

export async function world() {
  const rootToken = (env as unknown as { ROOT_TOKEN: string }).ROOT_TOKEN;

  async function user(opts: { admin?: boolean; external?: boolean; state?: "active" | "blocked"; scopes?: string[]; name?: string } = {}): Promise<TestUser> {
    const username = unique("user").replace(/-/g, "_");
    const name = opts.name ?? `User ${username}`;
    const email = `${username}@example.com`;
    const token = generateToken();
    const digest = await sha256Hex(token);
    return withTestDb((db) =>
      db.transaction(async (tx) => {
        const [u] = await tx
          .insert(users)
          .values({ username, name, email, admin: !!opts.admin, external: !!opts.external, state: opts.state ?? "active", confirmedAt: new Date() })
          .returning();
        const [ns] = await tx
          .insert(namespaces)
          .values({ type: "User", name, path: username, fullPath: username, fullName: name, ownerId: u.id, visibilityLevel: 20 })
          .returning();
        await tx.insert(personalAccessTokens).values({
          userId: u.id,
          name: "test",
          tokenDigest: digest,
          scopes: opts.scopes ?? ["api", "read_api", "read_user", "sudo", "admin_mode"],
        });
        return { id: u.id, username, name, email, token, namespaceId: ns.id };
      }),
    );
  }

  async function addMembers(sourceType: "Namespace" | "Project", sourceId: number, roles: RoleMembers) {
    // `opts` also carries visibility, group, owner…: only the `<role>s` keys are member lists.
    const roleLists = Object.entries(roles).filter(([key, list]) => key.slice(0, -1) in ROLE_LEVEL && Array.isArray(list));
    const rows = roleLists.flatMap(([role, list]) =>
      (list ?? []).map((u) => ({ sourceType, sourceId, userId: u.id, accessLevel: ROLE_LEVEL[role.slice(0, -1) as Role] })),
    );
    if (rows.length) await withTestDb((db) => db.insert(members).values(rows));
  }

  async function group(opts: { visibility?: Visibility; parent?: TestGroup; path?: string } & RoleMembers = {}): Promise<TestGroup> {
    const path = opts.path ?? unique("grp");
    const created = await withTestDb(async (db) => {
      const parent = opts.parent
        ? (await db.select().from(namespaces).where(eq(namespaces.id, opts.parent.id)))[0]
        : null;
      const fullPath = parent ? `${parent.fullPath}/${path}` : path;
      const fullName = parent ? `${parent.fullName} / ${path}` : path;
      const [g] = await db
        .insert(namespaces)
        .values({ type: "Group", name: path, path, fullPath, fullName, parentId: parent?.id ?? null, visibilityLevel: LEVEL[opts.visibility ?? "private"] })
        .returning();
      const [withIds] = await db
        .update(namespaces)
        .set({ traversalIds: [...(parent?.traversalIds ?? []), g.id] })
        .where(eq(namespaces.id, g.id))
        .returning();
      return withIds;
    });
    await addMembers("Namespace", created.id, opts);
    return { id: created.id, path, fullPath: created.fullPath, name: created.name };
  }

  async function project(opts: { visibility?: Visibility; group?: TestGroup; owner?: TestUser; path?: string; archived?: boolean } & RoleMembers = {}): Promise<TestProject> {
    const path = opts.path ?? unique("proj");
    const owner = opts.owner ?? (opts.group ? null : await user());
    const created = await withTestDb(async (db) => {
      const namespaceId = opts.group ? opts.group.id : owner!.namespaceId;
      const [ns] = await db.select().from(namespaces).where(eq(namespaces.id, namespaceId));
      const [p] = await db
        .insert(projects)
        .values({
          name: path,
          path,
          namespaceId,
          fullPath: `${ns.fullPath}/${path}`,
          nameWithNamespace: `${ns.fullName} / ${path}`,
          creatorId: owner?.id ?? 1,
          visibilityLevel: LEVEL[opts.visibility ?? "private"],
          archived: !!opts.archived,
        })
        .returning();
      if (owner && !opts.group)
        await db.insert(members).values({ sourceType: "Project", sourceId: p.id, userId: owner.id, accessLevel: 50 });
      return p;
    });
    await addMembers("Project", created.id, opts);
    return { id: created.id, path, fullPath: created.fullPath, name: created.name, namespaceId: created.namespaceId };
  }

  /** An issue made in the database with the project's next iid (the one iid writer), for tests of other endpoints. */
  async function issue(project: TestProject, opts: IssueOptions = {}): Promise<TestIssue> {
    return withTestDb((db) =>
      db.transaction(async (tx) => {
        const iid = await nextIid(tx, "issues", { projectId: project.id });
        const [row] = await tx
          .insert(issues)
          .values({
            iid,
            projectId: project.id,
            title: opts.title ?? unique("issue"),
            authorId: opts.authorId ?? null,
            confidential: !!opts.confidential,
            issueType: opts.issueType ?? "issue",
            discussionLocked: opts.locked ?? null,
          })
          .returning();
        if (opts.assigneeIds?.length) await tx.insert(issueAssignees).values(opts.assigneeIds.map((userId) => ({ issueId: row.id, userId })));
        return { id: row.id, iid: row.iid, projectId: project.id };
      }),
    );
  }

  const stranger = await user();
  return {
    user,
    group,
    project,
    issue,
    addMembers,
    stranger,
    root: client(rootToken),
    rootToken,
    anonymous: client(null),
    as: (u: TestUser | string): Client => client(typeof u === "string" ? u : u.token),
    db: withTestDb,
  };
}

export type World = Awaited<ReturnType<typeof world>>;
