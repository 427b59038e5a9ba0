import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Repo } from "../shared/git";
import { findWiki, wikiRepo } from "../shared/wikis/store";

/**
 * The project's wiki repository and its default branch, when the wiki has been written: the one place the
 * search API asks for it (`wiki_blobs`); a wiki never written answers `[]`.
 */
export async function wikiRepository(db: Executor, project: ProjectWithAccess): Promise<{ repo: Repo; ref: string } | null> {
  const wiki = await findWiki(db, { projectId: project.id });
  return wiki ? { repo: wikiRepo(wiki), ref: wiki.defaultBranch } : null;
}
