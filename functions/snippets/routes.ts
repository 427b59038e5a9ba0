import { z } from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../kernel/abilities";
import { visibilityLevel } from "../kernel/access";
import { requireUser } from "../kernel/auth";
import type { Actor, Ctx } from "../kernel/env";
import { badRequest, checkUnmodifiedSince, forbidden, notFound, paramsError, recordNotFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { noteUser } from "../shared/issuables/noteables";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { projectSnippet } from "./entities";
import * as q from "./queries";

/**
 * Project snippets, the part notes, discussions and award emoji need (lib/api/project_snippets.rb):
 * list, get, create, delete. Every endpoint first checks the project's snippets feature
 * (`before { check_snippets_enabled }`: 403 when disabled).
 * Not built: update, raw content, user agent details (they answer like unknown routes).
 */
export const snippetsRoutes = router();

async function snippetsProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await findProject(c, c.req.param("id") ?? "");
  if (!project.snippetsEnabled) throw forbidden();
  return project;
}

/** ProjectSnippetPolicy `admin_snippet`: the author who may still create snippets, maintainers, admins. */
function canAdminSnippet(actor: Actor, project: ProjectWithAccess, authorId: number | null): boolean {
  if (allowed(actor, "admin_snippet", project)) return true;
  return authorId === actor.user.id && allowed(actor, "create_snippet", project);
}

const OneSnippet = z.object({ snippet_id: p.int() });
const CreateSnippet = z.object({
  title: p.nonBlank(),
  description: p.string().optional(),
  visibility: p.oneOf("private", "internal", "public"),
  files: p.hashes({ file_path: p.nonBlank(), content: p.nonBlank() }).optional(),
  content: p.nonBlank().optional(),
  file_name: p.string().optional(),
});

/** GET /projects/:id/snippets (lib/api/project_snippets.rb) */
snippetsRoutes.get("/projects/:id/snippets", async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, pageParams);
  // No `authenticate!`: anonymous callers list the public snippets of a public project.
  const page = pageOf(params);
  const list = await q.listSnippets(c.var.db(), project, c.var.actor, page);
  paginate(c, page, list.total);
  return present(c, list.rows, projectSnippet);
});

/** GET /projects/:id/snippets/:snippet_id (lib/api/project_snippets.rb): `find` raises, so `404 Not found`. */
snippetsRoutes.get("/projects/:id/snippets/:snippet_id", async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  const snippet = await q.findSnippet(c.var.db(), project, c.var.actor, params.snippet_id);
  if (!snippet) throw recordNotFound();
  return present(c, snippet, projectSnippet);
});

/** POST /projects/:id/snippets (lib/api/project_snippets.rb, Snippets::CreateService) */
snippetsRoutes.post("/projects/:id/snippets", async (c) => {
  const actor = requireUser(c);
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, CreateSnippet, [{ exactlyOneOf: ["files", "content"] }]);
  // `given :content do requires :file_name end` (lib/api/helpers/snippets_helpers.rb).
  if (params.content !== undefined && params.file_name === undefined) throw paramsError("file_name is missing");
  authorize(c, "create_snippet", project);
  // Differs from GitLab: snippets hold one file (there are no snippet repositories here).
  if (params.files && params.files.length !== 1) throw badRequest("Snippets of more than one file are not supported");
  const file = params.files?.[0];
  const created = await q.insertSnippet(c.var.db(), {
    projectId: project.id,
    authorId: actor.user.id,
    title: params.title,
    description: params.description ?? null,
    visibilityLevel: visibilityLevel(params.visibility),
    fileName: file ? file.file_path : params.file_name!,
    content: file ? file.content : params.content!,
  });
  const row = Object.assign(created, { author: noteUser(actor.user), projectFullPath: project.fullPath });
  return present(c, row, projectSnippet, {}, 201);
});

/** DELETE /projects/:id/snippets/:snippet_id (lib/api/project_snippets.rb) */
snippetsRoutes.delete("/projects/:id/snippets/:snippet_id", async (c) => {
  const actor = requireUser(c);
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  const snippet = await q.findSnippet(c.var.db(), project, actor, params.snippet_id);
  if (!snippet) throw notFound("Snippet");
  if (!canAdminSnippet(actor, project, snippet.authorId)) throw forbidden();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), snippet.updatedAt);
  await q.deleteSnippet(c.var.db(), snippet.id);
  return c.body(null, 204);
});
