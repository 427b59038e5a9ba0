import * as z from "zod";
import { visibilityLevel } from "../../kernel/access";
import { requireAdmin, requireUser } from "../../kernel/auth";
import type { Actor, Ctx } from "../../kernel/env";
import { checkUnmodifiedSince, forbidden, notFound, recordNotFound } from "../../kernel/errors";
import { loadProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate, type Page } from "../../kernel/pagination";
import { p, readParamsWithPath } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { userAgentDetail, UserAgentDetail } from "../../entities/user_agent_details";
import { snippetEntity, type SnippetRow, Snippet } from "../../entities/snippets";
import { CREATE_FILE_RULES, createFileParams, RawFile, UPDATE_RULES, UpdateSnippet } from "../params";
import * as q from "../queries";
import { canAdminProjectSnippet } from "./project";
import { filesToCreate, mayCreatePersonalSnippet, rawContent, rawFile, requestDetail, updateSnippet } from "./shared";

/**
 * Snippets (lib/api/snippets.rb): personal snippets, and any snippet the caller may read by id.
 * `GET /snippets/all` is GitLab 16.3's (every snippet the caller may read; all of them for admins).
 */
export const personalSnippetRoutes = router();

const OneSnippet = z.object({ id: p.int() });
const CreateSnippet = z.object({
  title: p.nonBlank(),
  description: p.string().optional(),
  visibility: p.oneOf("private", "internal", "public").default("internal"),
  ...createFileParams,
});

async function listed(c: Ctx, load: (page: Page) => Promise<{ rows: SnippetRow[]; total: number }>) {
  const params = await readParamsWithPath(c, pageParams);
  const page = pageOf(params);
  const list = await load(page);
  paginate(c, page, list.total);
  return present(c, list.rows, snippetEntity);
}

/**
 * `update_snippet` / `admin_snippet` on a snippet the actor authored: PersonalSnippetPolicy lets its
 * author; a project snippet follows ProjectSnippetPolicy (the author must still be allowed to create).
 */
async function canAdminSnippet(c: Ctx, actor: Actor, snippet: SnippetRow): Promise<boolean> {
  if (snippet.projectId === null) return actor.isAdmin || snippet.authorId === actor.user.id;
  const project = await loadProject(c, String(snippet.projectId));
  return !!project && canAdminProjectSnippet(actor, project, snippet.authorId);
}

/** GET /snippets (lib/api/snippets.rb): the caller's own snippets. */
personalSnippetRoutes.get("/snippets", { params: pageParams, response: [Snippet] }, async (c) => {
  const actor = requireUser(c);
  return listed(c, (page) => q.listAuthoredSnippets(c.var.db(), actor, page));
});

/** GET /snippets/public (lib/api/snippets.rb): public personal snippets. */
personalSnippetRoutes.get("/snippets/public", { params: pageParams, response: [Snippet] }, async (c) => {
  requireUser(c);
  return listed(c, (page) => q.listPublicPersonalSnippets(c.var.db(), page));
});

/** GET /snippets/all (lib/api/snippets.rb, GitLab 16.3): every snippet the caller may read. */
personalSnippetRoutes.get("/snippets/all", { params: pageParams, response: [Snippet] }, async (c) => {
  const actor = requireUser(c);
  return listed(c, (page) => q.listAllSnippets(c.var.db(), actor, page));
});

/** GET /snippets/:id (lib/api/snippets.rb): any snippet the caller may read. */
personalSnippetRoutes.get("/snippets/:id", { params: OneSnippet, response: Snippet }, async (c) => {
  const params = await readParamsWithPath(c, OneSnippet, [], []);
  const snippet = await q.findAnySnippet(c.var.db(), c.var.actor, params.id);
  if (!snippet) throw notFound("Snippet");
  return present(c, snippet, snippetEntity);
});

/** POST /snippets (lib/api/snippets.rb, Snippets::CreateService without a project) */
personalSnippetRoutes.post("/snippets", { params: CreateSnippet, response: Snippet }, async (c) => {
  const actor = requireUser(c);
  const params = await readParamsWithPath(c, CreateSnippet, CREATE_FILE_RULES);
  if (!mayCreatePersonalSnippet(actor)) throw forbidden();
  const files = filesToCreate(params);
  const db = c.var.db();
  const created = await q.insertSnippet(
    db,
    { projectId: null, authorId: actor.user.id, title: params.title, description: params.description ?? null, visibilityLevel: visibilityLevel(params.visibility) },
    files,
    requestDetail(c),
  );
  return present(c, (await q.findAnySnippet(db, actor, created.id))!, snippetEntity, {}, 201);
});

/** PUT /snippets/:id (lib/api/snippets.rb, Snippets::UpdateService): the caller's own snippets. */
personalSnippetRoutes.put("/snippets/:id", { params: UpdateSnippet, response: Snippet }, async (c) => {
  const actor = requireUser(c);
  const params = await readParamsWithPath(c, UpdateSnippet.extend(OneSnippet.shape), UPDATE_RULES, []);
  const db = c.var.db();
  const snippet = await q.findAnySnippet(db, actor, params.id, { authoredBy: actor.user.id });
  if (!snippet) throw notFound("Snippet");
  if (!(await canAdminSnippet(c, actor, snippet))) throw forbidden();
  await updateSnippet(c, snippet, params);
  return present(c, (await q.findAnySnippet(db, actor, snippet.id))!, snippetEntity);
});

/** DELETE /snippets/:id (lib/api/snippets.rb): the caller's own snippets; 204, or 412. */
personalSnippetRoutes.delete("/snippets/:id", { params: OneSnippet }, async (c) => {
  const actor = requireUser(c);
  const params = await readParamsWithPath(c, OneSnippet, [], []);
  const snippet = await q.findAnySnippet(c.var.db(), actor, params.id, { authoredBy: actor.user.id });
  if (!snippet) throw notFound("Snippet");
  if (!(await canAdminSnippet(c, actor, snippet))) throw forbidden();
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), snippet.updatedAt);
  await q.deleteSnippet(c.var.db(), snippet.id);
  return c.body(null, 204);
});

/** GET /snippets/:id/raw (lib/api/snippets.rb) */
personalSnippetRoutes.get("/snippets/:id/raw", { params: OneSnippet }, async (c) => {
  const params = await readParamsWithPath(c, OneSnippet, [], []);
  const snippet = await q.findAnySnippet(c.var.db(), c.var.actor, params.id);
  if (!snippet) throw notFound("Snippet");
  return rawContent(c, snippet);
});

/** GET /snippets/:id/files/:ref/:file_path/raw (lib/api/snippets.rb) */
personalSnippetRoutes.get("/snippets/:id/files/:ref/:file_path/raw", { params: RawFile }, async (c) => {
  const params = await readParamsWithPath(c, RawFile.extend(OneSnippet.shape), [], []);
  const snippet = await q.findAnySnippet(c.var.db(), c.var.actor, params.id);
  if (!snippet) throw notFound("Snippet");
  return rawFile(c, snippet, params.ref, params.file_path);
});

/** GET /snippets/:id/user_agent_detail (lib/api/snippets.rb): admins; `Snippet.find` raises `404 Not found`. */
personalSnippetRoutes.get("/snippets/:id/user_agent_detail", { params: OneSnippet, response: UserAgentDetail }, async (c) => {
  const params = await readParamsWithPath(c, OneSnippet, [], []);
  requireAdmin(c);
  const db = c.var.db();
  if (!(await q.snippetExists(db, params.id))) throw recordNotFound();
  const detail = await q.findUserAgentDetail(db, params.id);
  if (!detail) throw notFound("UserAgentDetail");
  return present(c, detail, userAgentDetail);
});
