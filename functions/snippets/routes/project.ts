import * as z from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../../kernel/abilities";
import { visibilityLevel } from "../../kernel/access";
import { requireAdmin, requireUser } from "../../kernel/auth";
import type { Actor, Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, notFound, recordNotFound } from "../../kernel/errors";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { userAgentDetail, UserAgentDetail } from "../../entities/user_agent_details";
import { snippetEntity, Snippet } from "../../entities/snippets";
import { CREATE_FILE_RULES, createFileParams, RawFile, UPDATE_RULES, UpdateSnippet } from "../params";
import * as q from "../queries";
import { filesToCreate, rawContent, rawFile, requestDetail, updateSnippet } from "./shared";

/**
 * Project snippets (lib/api/project_snippets.rb). Every endpoint first checks the project's snippets
 * feature (`before { check_snippets_enabled }`: 403 when disabled).
 */
export const projectSnippetRoutes = router();

async function snippetsProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await findProject(c, c.req.param("id") ?? "");
  if (!project.snippetsEnabled) throw forbidden();
  return project;
}

/**
 * ProjectSnippetPolicy `update_snippet` / `admin_snippet`: the author who may still create snippets,
 * maintainers, admins.
 */
export function canAdminProjectSnippet(actor: Actor, project: ProjectWithAccess, authorId: number | null): boolean {
  if (allowed(actor, "admin_snippet", project)) return true;
  return authorId === actor.user.id && allowed(actor, "create_snippet", project);
}

const OneSnippet = z.object({ snippet_id: p.int() });
const CreateSnippet = z.object({
  title: p.nonBlank(),
  description: p.string().optional(),
  visibility: p.oneOf("private", "internal", "public"),
  ...createFileParams,
});

/** GET /projects/:id/snippets (lib/api/project_snippets.rb) */
projectSnippetRoutes.get("/projects/:id/snippets", { params: pageParams, response: [Snippet] }, async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, pageParams);
  // No `authenticate!`: anonymous callers list the public snippets of a public project.
  const page = pageOf(params);
  const list = await q.listSnippets(c.var.db(), project, c.var.actor, page);
  paginate(c, page, list.total);
  return present(c, list.rows, snippetEntity);
});

/** GET /projects/:id/snippets/:snippet_id (lib/api/project_snippets.rb): `find` raises, so `404 Not found`. */
projectSnippetRoutes.get("/projects/:id/snippets/:snippet_id", { params: OneSnippet, response: Snippet }, async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  const snippet = await q.findSnippet(c.var.db(), project, c.var.actor, params.snippet_id);
  if (!snippet) throw recordNotFound();
  return present(c, snippet, snippetEntity);
});

/** POST /projects/:id/snippets (lib/api/project_snippets.rb, Snippets::CreateService) */
projectSnippetRoutes.post("/projects/:id/snippets", { params: CreateSnippet, response: Snippet }, async (c) => {
  const actor = requireUser(c);
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, CreateSnippet, CREATE_FILE_RULES);
  const files = filesToCreate(params);
  authorize(c, "create_snippet", project);
  const db = c.var.db();
  const created = await q.insertSnippet(
    db,
    { projectId: project.id, authorId: actor.user.id, title: params.title, description: params.description ?? null, visibilityLevel: visibilityLevel(params.visibility) },
    files,
    requestDetail(c),
  );
  return present(c, (await q.findSnippet(db, project, actor, created.id))!, snippetEntity, {}, 201);
});

/** PUT /projects/:id/snippets/:snippet_id (lib/api/project_snippets.rb, Snippets::UpdateService) */
projectSnippetRoutes.put("/projects/:id/snippets/:snippet_id", { params: UpdateSnippet, response: Snippet }, async (c) => {
  const actor = requireUser(c);
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, UpdateSnippet.extend(OneSnippet.shape), UPDATE_RULES);
  const db = c.var.db();
  const snippet = await q.findSnippet(db, project, actor, params.snippet_id);
  if (!snippet) throw notFound("Snippet");
  if (!canAdminProjectSnippet(actor, project, snippet.authorId)) throw forbidden();
  await updateSnippet(c, snippet, params);
  return present(c, (await q.findSnippet(db, project, actor, snippet.id))!, snippetEntity);
});

/** DELETE /projects/:id/snippets/:snippet_id (lib/api/project_snippets.rb) */
projectSnippetRoutes.delete("/projects/:id/snippets/:snippet_id", { params: OneSnippet }, async (c) => {
  const actor = requireUser(c);
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  const snippet = await q.findSnippet(c.var.db(), project, actor, params.snippet_id);
  if (!snippet) throw notFound("Snippet");
  if (!canAdminProjectSnippet(actor, project, snippet.authorId)) throw forbidden();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), snippet.updatedAt);
  await q.deleteSnippet(c.var.db(), snippet.id);
  return c.body(null, 204);
});

/** GET /projects/:id/snippets/:snippet_id/raw (lib/api/project_snippets.rb) */
projectSnippetRoutes.get("/projects/:id/snippets/:snippet_id/raw", { params: OneSnippet }, async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  const snippet = await q.findSnippet(c.var.db(), project, c.var.actor, params.snippet_id);
  if (!snippet) throw notFound("Snippet");
  return rawContent(c, snippet);
});

/** GET /projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw (lib/api/project_snippets.rb) */
projectSnippetRoutes.get("/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw", { params: RawFile }, async (c) => {
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, RawFile.extend(OneSnippet.shape));
  const snippet = await q.findSnippet(c.var.db(), project, c.var.actor, params.snippet_id);
  if (!snippet) throw notFound("Snippet");
  return rawFile(c, snippet, params.ref, params.file_path);
});

/** GET /projects/:id/snippets/:snippet_id/user_agent_detail (lib/api/project_snippets.rb): admins. */
projectSnippetRoutes.get("/projects/:id/snippets/:snippet_id/user_agent_detail", { params: OneSnippet, response: UserAgentDetail }, async (c) => {
  // `before { check_snippets_enabled }` looks the project up first (404 for who may not read it), then
  // the parameters, then `authenticated_as_admin!` (401 anonymous, 403 other users).
  const project = await snippetsProject(c);
  const params = await readParamsWithPath(c, OneSnippet);
  requireAdmin(c);
  const snippet = await q.findSnippet(c.var.db(), project, c.var.actor, params.snippet_id);
  if (!snippet) throw recordNotFound();
  const detail = await q.findUserAgentDetail(c.var.db(), snippet.id);
  if (!detail) throw notFound("UserAgentDetail");
  return present(c, detail, userAgentDetail);
});
