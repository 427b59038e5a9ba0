// Project and group wikis (lib/api/wikis.rb with API::Helpers::WikisHelpers, GitLab 15.4; group wikis are
// EE's `wiki_resource_kinds` << :groups). Pages live in the wiki's git repository (shared/wikis/store.ts):
// an empty wiki lists [], the repository is created by the first write, and every write is a commit.
import type { GroupWithAccess, ProjectWithAccess } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { authorizedGroup, authorizedProject } from "../kernel/lookup";
import { readParams, readParamsWithPath } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { WikiAttachment, WikiPage, WikiPageListed, wikiAttachment, wikiPage, wikiPageBasic } from "../entities/wikis";
import { hookEvent } from "../shared/webhooks";
import { renderMarkup } from "../shared/markup";
import { ensureWiki, findPage, findWiki, listPages, pageText, type Page, type WikiContainer, type WikiRow } from "../shared/wikis/store";
import { CreateWikiPage, DeleteWikiPage, ListWikiPages, ShowWikiPage, UpdateWikiPage, UploadWikiAttachment } from "./params";
import { createPage, deletePage, updatePage, uploadAttachment } from "./services";

export const wikisRoutes = router();

type Ability = "read_wiki" | "create_wiki" | "admin_wiki";
/** The wiki's container, and the project or group whose references its rendered pages resolve against. */
type Found = { container: WikiContainer; projectId: number | null; project?: ProjectWithAccess; group?: GroupWithAccess };

/** `authorize! <ability>, container` after `user_project` / `user_group` (404, then 403). */
async function container(c: Ctx, kind: "project" | "group", ability: Ability): Promise<Found> {
  if (kind === "project") {
    const project = await authorizedProject(c, ability);
    return { container: { projectId: project.id }, projectId: project.id, project };
  }
  const group = await authorizedGroup(c, ability);
  return { container: { groupId: group.id }, projectId: null, group };
}

/** WikisHelpers#wiki_page: the page by title or slug (at `version`), else `404 Wiki Page Not Found`. */
async function wikiPageOf(c: Ctx, wiki: WikiRow | null, slug: string, version?: string): Promise<Page> {
  const page = await findPage(c.var.db(), wiki, slug, version);
  if (!page) throw notFound("Wiki Page");
  return page;
}

/**
 * The Wiki Page Hook of a wiki's change (WikiPages::BaseService#execute_hooks): a project wiki's reaches
 * the project's hooks and its groups' hooks, a group wiki's the group hooks of the group and its
 * ancestors. Differs from GitLab: no wiki event is recorded; 15.4 sends no hook for group wikis.
 */
async function wikiHook(c: Ctx, found: Found, wiki: WikiRow, action: "create" | "update" | "delete", path: string, sha: string) {
  const change = { wikiId: wiki.id, action, userId: requireUser(c).user.id, path, sha };
  if (found.projectId !== null) await hookEvent(c.env, baseUrl(c), { kind: "wiki_page", projectId: found.projectId, ...change });
  else if (found.group) await hookEvent(c.env, baseUrl(c), { kind: "group_wiki_page", groupId: found.group.id, ...change });
}

/**
 * API::Entities::WikiPage's content: raw, or the rendered HTML (`render_html`): Markdown, AsciiDoc, RDoc
 * and Org rendered and sanitised (shared/markup); other markups as escaped text in a `<pre>`.
 */
async function content(c: Ctx, found: Found, page: Page, render: boolean): Promise<{ content: string; encoding: string }> {
  const { text, encoding } = pageText(page.content);
  if (!render) return { content: text, encoding };
  return { content: await renderMarkup(c, page.format, text, { project: found.project, group: found.group }), encoding };
}

const textOf = (bytes: Uint8Array) => {
  const { text, encoding } = pageText(bytes);
  return { content: text, encoding };
};

for (const kind of ["project", "group"] as const) {
  const base = `/${kind}s/:id/wikis`;

  /** GET /{projects,groups}/:id/wikis (lib/api/wikis.rb): every page, in path order; not paginated. */
  wikisRoutes.get(base, { params: ListWikiPages, response: [WikiPageListed], paginated: false }, async (c) => {
    const params = await readParams(c, ListWikiPages);
    const found = await container(c, kind, "read_wiki");
    const pages = await listPages(c.var.db(), await findWiki(c.var.db(), found.container), params.with_content);
    if (!params.with_content) return present(c, pages.map(({ format, slug, title }) => ({ format, slug, title })), wikiPageBasic);
    return present(c, pages.map(({ format, slug, title, content }) => ({ format, slug, title, ...textOf(content ?? new Uint8Array()) })), wikiPage);
  });

  /** POST /{projects,groups}/:id/wikis/attachments (lib/api/wikis.rb) */
  wikisRoutes.post(`${base}/attachments`, { params: UploadWikiAttachment, response: WikiAttachment }, async (c) => {
    const actor = requireUser(c);
    const params = await readParams(c, UploadWikiAttachment);
    const found = await container(c, kind, "create_wiki");
    const wiki = await ensureWiki(c.var.db(), found.container);
    const uploaded = await uploadAttachment(c.var.db(), wiki, actor.user, params.file, params.branch);
    return present(c, uploaded, wikiAttachment, {}, 201);
  });

  /** GET /{projects,groups}/:id/wikis/:slug (lib/api/wikis.rb): `version` (any revision), `render_html`. */
  wikisRoutes.get(`${base}/:slug{.+}`, { params: ShowWikiPage, response: WikiPage }, async (c) => {
    const params = await readParamsWithPath(c, ShowWikiPage);
    const found = await container(c, kind, "read_wiki");
    const page = await wikiPageOf(c, await findWiki(c.var.db(), found.container), params.slug, params.version);
    return present(c, { ...page, ...(await content(c, found, page, params.render_html)) }, wikiPage);
  });

  /** POST /{projects,groups}/:id/wikis (lib/api/wikis.rb) */
  wikisRoutes.post(base, { params: CreateWikiPage, response: WikiPage }, async (c) => {
    const actor = requireUser(c);
    const params = await readParams(c, CreateWikiPage);
    const found = await container(c, kind, "create_wiki");
    const wiki = await ensureWiki(c.var.db(), found.container);
    const page = await createPage(c.var.db(), wiki, actor.user, params);
    await wikiHook(c, found, wiki, "create", page.path, page.commit);
    return present(c, page, wikiPage, {}, 201);
  });

  /** PUT /{projects,groups}/:id/wikis/:slug (lib/api/wikis.rb) */
  wikisRoutes.put(`${base}/:slug{.+}`, { params: UpdateWikiPage, response: WikiPage }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, UpdateWikiPage);
    const found = await container(c, kind, "create_wiki");
    const wiki = await findWiki(c.var.db(), found.container);
    const page = await wikiPageOf(c, wiki, params.slug);
    const updated = await updatePage(c.var.db(), wiki!, page, actor.user, params);
    await wikiHook(c, found, wiki!, "update", updated.path, updated.commit);
    return present(c, updated, wikiPage);
  });

  /** DELETE /{projects,groups}/:id/wikis/:slug (lib/api/wikis.rb) */
  wikisRoutes.delete(`${base}/:slug{.+}`, { params: DeleteWikiPage }, async (c) => {
    const actor = requireUser(c);
    const params = await readParamsWithPath(c, DeleteWikiPage);
    const found = await container(c, kind, "admin_wiki");
    const wiki = await findWiki(c.var.db(), found.container);
    const page = await wikiPageOf(c, wiki, params.slug);
    await deletePage(c.var.db(), wiki!, page, actor.user);
    // The hook shows the page as it was (DestroyService hooks the page it deleted).
    await wikiHook(c, found, wiki!, "delete", page.path, page.commit.oid);
    return c.body(null, 204);
  });
}
