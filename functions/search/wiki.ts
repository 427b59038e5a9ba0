import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Repo } from "../shared/git";

/**
 * The project's wiki repository and its default branch, when the project has one: the one place the
 * search API asks for it (`wiki_blobs`). Wikis are not built yet, so no project has one and
 * `wiki_blobs` answers `[]`; the wikis domain connects its repository here.
 */
export async function wikiRepository(_db: Executor, _project: ProjectWithAccess): Promise<{ repo: Repo; ref: string } | null> {
  return null;
}
