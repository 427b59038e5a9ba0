// Repository#contributors (app/models/repository.rb): authors of the last 2,000 non-merge commits of a
// revision, grouped by author email in the order they first appear (newest first).
import type { Executor } from "../../../kernel/db";
import { readCommitRows } from "./commit_index";
import { RevWalk } from "./log";
import { resolveRevisions, type Repo } from "./revisions";
import type { Contributor } from "../../../entities/repository";

export type { Contributor };

/** `commits(ref, limit: 2000, skip_merges: true)` then `group_by(&:author_email)`; null for an unknown ref. */
export async function contributors(db: Executor, repo: Repo, rev: string): Promise<Contributor[] | null> {
  const walk = new RevWalk(db, repo.poolId, { batch: 2500 });
  const tip = (await resolveRevisions(db, repo, [rev], walk)).get(rev);
  if (!tip) return null;
  const oids = await walk.log({ kind: "tips", include: [tip] }, { maxCount: 2000, noMerges: true });
  const rows = await readCommitRows(db, repo.poolId, oids);
  const byEmail = new Map<string, Contributor>();
  for (const oid of oids) {
    const row = rows.get(oid);
    if (!row) continue;
    let contributor = byEmail.get(row.authorEmail);
    if (!contributor) {
      contributor = { name: "", email: row.authorEmail, commits: 0 };
      byEmail.set(row.authorEmail, contributor);
    }
    // `contributor.name = commit.author_name if contributor.name.blank?`
    if (contributor.name.trim() === "") contributor.name = row.authorName;
    contributor.commits++;
  }
  return [...byEmail.values()];
}
