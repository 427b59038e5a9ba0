// Loads the git oracle fixtures into the store of a fresh project, through the git core.
import { env } from "cloudflare:test";
import { createDb, type Database } from "../../functions/kernel/db";
import { fromBase64 } from "../../functions/shared/git/pure/bytes";
import { indexCommits } from "../../functions/shared/git/store/commit_index";
import { decodeCommit, type ObjectType, type RawObject } from "../../functions/shared/git/pure/objects";
import { createRef } from "../../functions/shared/git/store/refs";
import type { Repo } from "../../functions/shared/git/store/revisions";
import { writeObjects } from "../../functions/shared/git/store/objects";
import { storeSource } from "../../functions/shared/git/store/trees";
import { world } from "./world";
import type { GitFixtures } from "./git-oracle-types";

export function openDb(): { db: Database; close: () => Promise<void> } {
  const { db, pool } = createDb(env as never);
  return { db, close: () => pool.end() };
}

/** A project whose repository holds the fixture history; pool = project (no forks yet). */
export async function loadFixtureRepo(db: Database, fixtures: GitFixtures): Promise<Repo> {
  const w = await world();
  const owner = await w.user();
  const project = await w.project({ owner });
  const repo: Repo = { projectId: project.id, poolId: project.id, defaultBranch: fixtures.defaultBranch };
  const objects: RawObject[] = fixtures.objects.map((o) => ({ oid: o.oid, type: o.type as ObjectType, body: fromBase64(o.data) }));
  await writeObjects(db, repo.poolId, objects);
  const commits = objects.filter((o) => o.type === "commit").map((o) => ({ oid: o.oid, commit: decodeCommit(o.body) }));
  await indexCommits(db, repo.poolId, commits, storeSource(db, repo.poolId));
  for (const ref of fixtures.refs) await createRef(db, repo.projectId, ref.name, ref.target, ref.peeled);
  return repo;
}
