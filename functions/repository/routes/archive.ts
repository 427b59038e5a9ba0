import * as z from "zod";
import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { p, readParams } from "../../kernel/params";
import { router } from "../../kernel/router";
import { streamOf } from "../../kernel/stream";
import { archiveItems, bzip2Stream, repoOf, resolveCommitRow, tarArchive, zipArchive } from "../../shared/git";

/** The archive (lib/api/repositories.rb `send_git_archive`, Workhorse's git/archive.go). */
export const archiveRoutes = router();

const Archive = z.object({ sha: p.string().optional(), format: p.string().optional(), path: p.string().optional() });

/** Repository#archive_file_path: the extension a requested format gets (unknown ones are tar.gz). */
function extensionOf(format: string): "tar.gz" | "tar.bz2" | "tar" | "zip" {
  if (["tar.bz2", "tbz", "tbz2", "tb2", "bz2"].includes(format)) return "tar.bz2";
  if (format === "tar" || format === "zip") return format;
  return "tar.gz";
}

async function archive(c: Ctx, pathFormat: string | null) {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, Archive);
  const extension = extensionOf(pathFormat ?? params.format ?? "tar.gz");
  const repo = repoOf(project);
  // `ref ||= root_ref`; an unknown ref or path makes send_git_archive raise → `not_found!('File')`.
  const ref = params.sha || project.defaultBranch;
  const commit = ref ? await resolveCommitRow(c.var.db(), repo, ref) : null;
  if (!ref || !commit) throw notFound("File");
  const items = await archiveItems(c.var.db(), repo, commit.tree, params.path ?? null);
  if (!items) throw notFound("File");
  // Repository#archive_prefix with append_sha: true.
  const segments = [project.path, ref.replace(/\//g, "-"), commit.oid];
  if (params.path) segments.push(params.path.replace(/\//g, "-"));
  const prefix = segments.join("-");
  const mtime = Math.floor(commit.committedAt.getTime() / 1000);
  const headers = {
    "Content-Disposition": `attachment; filename="${prefix}.${extension}"`,
    "Content-Type": extension === "zip" ? "application/zip" : "application/octet-stream",
    "Content-Transfer-Encoding": "binary",
  };
  if (extension === "zip") return new Response(streamOf(c, zipArchive(c.env, repo.poolId, prefix, mtime, items), "zip archive"), { headers });
  const tar = streamOf(c, tarArchive(c.env, repo.poolId, commit.oid, prefix, mtime, items), "tar archive");
  if (extension === "tar") return new Response(tar, { headers });
  // Workers' CompressionStream has gzip but no bzip2: a hand-written compressor, a 900 kB block at a time.
  return new Response(tar.pipeThrough(extension === "tar.bz2" ? bzip2Stream() : new CompressionStream("gzip")), { headers });
}

/** GET /projects/:id/repository/archive[.format] (lib/api/repositories.rb) */
archiveRoutes.get("/projects/:id/repository/archive", { params: Archive }, (c) => archive(c, null));
archiveRoutes.get("/projects/:id/repository/:file{archive\\.(?:zip|tar|tar\\.gz|tgz|gz|tar\\.bz2|tbz|tbz2|tb2|bz2)}", { params: Archive }, (c) =>
  archive(c, c.req.param("file")!.slice("archive.".length)),
);
