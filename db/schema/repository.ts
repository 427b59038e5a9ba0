// Git storage (docs/git.md, "Tables"): objects belong to a fork network (`pool_id`), refs to a project. Until forks
// exist a project's pool is its own id (`pool_id = project_id`, see repoOf in functions/shared/git/store/revisions.ts).
import { bigint, boolean, check, customType, index, integer, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

/** Raw bytes (`bytea`). The driver returns a Buffer (a Uint8Array subclass) or, from some proxies, `\x…` text. */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array | string }>({
  dataType: () => "bytea",
  toDriver: (value) => value,
  fromDriver: (value) => {
    if (typeof value === "string") {
      const hex = value.startsWith("\\x") ? value.slice(2) : value;
      const out = new Uint8Array(hex.length >> 1);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
      return out;
    }
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  },
});

/**
 * A lowercase hex object id, `char(40)` with the "C" collation so that the primary key's btree also
 * serves prefix searches (`oid LIKE 'abcd%'`, short shas) whatever the database's default collation.
 */
export const oidColumn = customType<{ data: string; driverData: string }>({
  dataType: () => `char(40) COLLATE "C"`,
});

export const gitObjects = pgTable(
  "git_objects",
  {
    poolId: integer().notNull(),
    /** 20 raw bytes of the SHA-1. */
    oid: bytea().notNull(),
    /** Pack type numbers: 1 commit, 2 tree, 3 blob, 4 tag. */
    type: smallint().notNull(),
    /** Size of the body (without the `<type> <size>\0` header). */
    size: integer().notNull(),
    /** The zlib-deflated body: exactly a pack entry's data. Stored without a second TOAST compression. */
    zdata: bytea(),
    /** `git/<pool>/<oid>` in R2 for large blobs. */
    r2Key: text(),
  },
  (t) => [
    primaryKey({ columns: [t.poolId, t.oid] }),
    check("git_objects_one_location", sql`(${t.zdata} IS NULL) <> (${t.r2Key} IS NULL)`),
  ],
);

export const gitRefs = pgTable(
  "git_refs",
  {
    /**
     * The repository: a project's id, or minus a wiki's id (db/schema/wikis.ts). No foreign key since
     * migration 0044; triggers delete the refs with their project or wiki, as the cascade did.
     */
    projectId: integer().notNull(),
    /** Full name: `refs/heads/main`, `refs/tags/v1`, `refs/pipelines/12`. */
    name: text().notNull(),
    target: oidColumn().notNull(),
    /** The commit behind an annotated tag (null when `target` is not a tag object). */
    peeled: oidColumn(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

export const gitCommits = pgTable(
  "git_commits",
  {
    poolId: integer().notNull(),
    oid: oidColumn().notNull(),
    tree: oidColumn().notNull(),
    parents: text().array().notNull(),
    /** 1 for a root, else 1 + the largest parent generation (git's commit-graph topological level). */
    generation: integer().notNull(),
    authorName: text().notNull(),
    authorEmail: text().notNull(),
    authoredAt: timestamptz().notNull(),
    /** Offset east of UTC in minutes (`+0530` → 330). */
    authorTz: smallint().notNull(),
    committerName: text().notNull(),
    committerEmail: text().notNull(),
    committedAt: timestamptz().notNull(),
    committerTz: smallint().notNull(),
    message: text().notNull(),
    /** `git diff --numstat <first parent> <commit>` summed, binary files skipped (docs/git.md, "Stats and diffs"). */
    additions: integer().notNull().default(0),
    deletions: integer().notNull().default(0),
    filesChanged: integer().notNull().default(0),
    /** False while `git_commit_changes` rows are not computed yet (large pushes, later). */
    changesIndexed: boolean().notNull().default(true),
  },
  (t) => [primaryKey({ columns: [t.poolId, t.oid] })],
);

export const gitCommitChanges = pgTable(
  "git_commit_changes",
  {
    poolId: integer().notNull(),
    commitOid: oidColumn().notNull(),
    path: text().notNull(),
    /** The source path of a rename (status R). */
    oldPath: text(),
    /** A added, M modified, D deleted, R renamed (exact), T type changed. */
    status: text().notNull(),
    oldMode: integer(),
    newMode: integer(),
    oldOid: oidColumn(),
    newOid: oidColumn(),
    additions: integer().notNull().default(0),
    deletions: integer().notNull().default(0),
    binary: boolean().notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.poolId, t.commitOid, t.path] }),
    index("index_git_commit_changes_on_pool_path_commit").on(t.poolId, t.path.op("text_pattern_ops"), t.commitOid),
    index("index_git_commit_changes_on_pool_old_path")
      .on(t.poolId, t.oldPath.op("text_pattern_ops"))
      .where(sql`${t.oldPath} IS NOT NULL`),
  ],
);

/** One row per ref update, written in the transaction that moves the ref; drives pipelines and hooks. */
export const pushEvents = pgTable(
  "push_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    ref: text().notNull(),
    /** 40 zeros when the ref was created, as git's hooks say. */
    before: oidColumn().notNull(),
    /** 40 zeros when the ref was deleted. */
    after: oidColumn().notNull(),
    userId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    processedAt: timestamptz(),
  },
  (t) => [
    index("index_push_events_on_project_id_and_id").on(t.projectId, t.id),
    index("index_push_events_unprocessed").on(t.createdAt).where(sql`${t.processedAt} IS NULL`),
  ],
);

export type GitObjectRow = typeof gitObjects.$inferSelect;
export type GitRef = typeof gitRefs.$inferSelect;
export type GitCommitRow = typeof gitCommits.$inferSelect;
export type GitCommitChange = typeof gitCommitChanges.$inferSelect;
export type PushEvent = typeof pushEvents.$inferSelect;
