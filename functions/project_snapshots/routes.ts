import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import { findProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { router } from "../kernel/router";
import { streamOf } from "../kernel/stream";
import { planSnapshot, repoOf, snapshotTar } from "../shared/git";
import { findWiki, wikiRepo } from "../shared/wikis/store";

/** lib/api/project_snapshots.rb: a raw copy of a repository, for administrators (Geo, backups). */
export const projectSnapshotsRoutes = router();

const Snapshot = z.object({ wiki: p.bool().optional() });

/** Workhorse's git/snapshot.go sends these once Gitaly has started the stream. */
const HEADERS = {
  "Content-Disposition": 'attachment; filename="snapshot.tar"',
  "Content-Type": "application/x-tar",
  "Content-Transfer-Encoding": "binary",
  "Cache-Control": "private",
};

/** GET /projects/:id/snapshot: the tar of the bare repository (`wiki=true`: of the wiki's). */
projectSnapshotsRoutes.get("/projects/:id/snapshot", { params: Snapshot }, async (c) => {
  // `before { authorize_read_git_snapshot! }` (authenticated_with_can_read_all_resources!) runs before
  // the parameters are validated and the project is looked up: 401, then 403 even for a project that
  // does not exist, then 400 for a bad `wiki`, then 404.
  requireAdmin(c);
  const params = await readParams(c, Snapshot);
  const project = await findProject(c, c.req.param("id")!);
  const wiki = params.wiki ? await findWiki(c.var.db(), { projectId: project.id }) : null;
  if (params.wiki && !wiki) {
    // A wiki never written has no repository. GitLab asks Gitaly for its snapshot all the same;
    // Workhorse has sent 200 and the headers before Gitaly's "not found" arrives, so the answer is an
    // empty body. Edgeforge answers that too.
    return new Response(null, { status: 200, headers: HEADERS });
  }
  const repo = wiki ? wikiRepo(wiki) : repoOf(project);
  const plan = await planSnapshot(c.var.db(), repo);
  return new Response(streamOf(c, snapshotTar(c.env, repo.poolId, plan, Math.floor(Date.now() / 1000)), "snapshot"), { headers: HEADERS });
});
