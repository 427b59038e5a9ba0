import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { requireAdmin } from "../../kernel/auth";
import { findProject, authorizedProject } from "../../kernel/lookup";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { findCommit, listTree, objectSizes, repoOf } from "../../shared/git";
import { projectRepositoryStorage, ProjectRepositoryStorage } from "../../entities/projects";
import { languageShares } from "../languages";

/** `languages`, `storage` and `housekeeping` of lib/api/projects.rb. */
export const repositoryInfoRoutes = router();

/**
 * GET /projects/:id/languages: `{ "<language>": <percent> }` of the default branch (see ../languages.ts);
 * `{}` for an empty repository. Computed per request from the tree (GitLab caches it in
 * repository_languages after each push to the default branch).
 */
repositoryInfoRoutes.get("/projects/:id/languages", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  const db = c.var.db();
  const repo = repoOf(project);
  const head = repo.defaultBranch ? await findCommit(db, repo, repo.defaultBranch) : null;
  if (!head) return c.json({});
  const entries = (await listTree(db, repo, head.tree, "", true)) ?? [];
  // Regular files only: no symlinks (120000), submodules or trees.
  const blobs = entries.filter((e) => e.type === "blob" && e.mode !== "120000");
  const sizes = await objectSizes(db, repo.poolId, blobs.map((b) => b.oid));
  return c.json(languageShares(blobs.map((b) => ({ path: b.path, size: sizes.get(b.oid) ?? 0 }))));
});

/**
 * GET /projects/:id/storage (admins; Entities::ProjectRepositoryStorage).
 * Differs from GitLab: Edgeforge keeps git objects in Postgres (git_objects by pool), not on a Gitaly
 * storage; `disk_path` is the hashed-storage name GitLab would give the repository
 * (`@hashed/<sha256(id)>`), an identifier rather than a path, and `repository_storage` is "default".
 */
repositoryInfoRoutes.get("/projects/:id/storage", { response: ProjectRepositoryStorage }, async (c) => {
  requireAdmin(c);
  const project = await findProject(c, c.req.param("id")!);
  const hash = bytesToHex(sha256(utf8ToBytes(String(project.id))));
  const diskPath = `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
  return present(c, { id: project.id, diskPath, createdAt: project.createdAt }, projectRepositoryStorage);
});

/**
 * POST /projects/:id/housekeeping (maintainers: `authorize_admin_project`): 201.
 * Differs from GitLab: there is nothing to repack, prune or pack-ref — objects are rows written once,
 * refs are rows, packs are built per fetch — so no work is queued and the body is `null` where GitLab
 * answers the id of its GC job; GitLab's 409 for a second call within the lease never happens.
 */
repositoryInfoRoutes.post("/projects/:id/housekeeping", async (c) => {
  const project = await authorizedProject(c, "admin_project", { signedIn: true });
  return c.json(null, 201);
});
