/** @jsxImportSource hono/jsx */
// A project's wiki pages (GitLab's /-/wikis, /-/wikis/pages, /-/wikis/*id; WikiActions#show and #pages).
// Read through the API's wiki store (shared/wikis/store.ts) and its read rule: `read_wiki` on the
// project, so a private project, a disabled wiki (`wiki_enabled`) or a project the visitor may not read
// is the 404 page, as `GET /projects/:id/wikis/:slug` answers 404 for them.
import { raw } from "hono/html";
import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { p, readParams } from "../kernel/params";
import { renderMarkup } from "../shared/markup";
import { findPage, findWiki, listPages, pageText, type Page } from "../shared/wikis/store";
import { authorizePage, projectCrumbs, projectPath, ProjectTabs, webProject, type WebRouter } from "./kit";
import { page } from "./layout";
import { markdownForPage } from "./markdown";

/** GitLab's `version_id`: the page at another revision of the wiki's repository. */
export const WikiPageParams = z.object({ version_id: p.string().optional() });

const wikiBase = (project: ProjectWithAccess) => `${projectPath(project)}/-/wikis`;
/** A slug's path in a link: each segment escaped, the slashes kept (GitLab's wiki_page_path). */
const slugPath = (slug: string) => slug.split("/").map(encodeURIComponent).join("/");

const wikiCrumbs = (project: ProjectWithAccess, ...rest: { label: string; href?: string }[]) =>
  projectCrumbs(project, { label: "Wiki", href: `${wikiBase(project)}/pages` }, ...rest);

/** The project of the path with `read_wiki` (403 and 404 are both the 404 page). */
async function wikiProject(c: Ctx): Promise<ProjectWithAccess> {
  const project = await webProject(c);
  authorizePage(c, "read_wiki", project);
  return project;
}

/**
 * A page's content as HTML: the API's `render_html` (shared/markup: Markdown, AsciiDoc, RDoc and Org
 * rendered and sanitised, references resolved in the project), as pages embed it.
 */
async function pageBody(c: Ctx, project: ProjectWithAccess, wikiPage: Page) {
  const { text } = pageText(wikiPage.content);
  return <div class="md">{raw(markdownForPage(await renderMarkup(c, wikiPage.format, text, { project })))}</div>;
}

export function wikiPages(web: WebRouter) {
  /** GitLab's /-/wikis redirects to the home page; here to the pages list while there is no home page. */
  web.get("/:project{.+}/-/wikis", { summary: "Web: a project's wiki (its home page, else its pages)" }, async (c) => {
    const project = await wikiProject(c);
    const home = await findPage(c.var.db(), await findWiki(c.var.db(), { projectId: project.id }), "home");
    return c.redirect(`${wikiBase(project)}/${home ? slugPath(home.slug) : "pages"}`, 302);
  });

  /** GitLab's /-/wikis/pages: every page in path order (Wiki#list_pages); not paginated, as the API. */
  web.get("/:project{.+}/-/wikis/pages", { summary: "Web: a project's wiki pages" }, async (c) => {
    const project = await wikiProject(c);
    const pages = await listPages(c.var.db(), await findWiki(c.var.db(), { projectId: project.id }), false);
    return page(
      c,
      { title: `Wiki pages · ${project.nameWithNamespace}`, crumbs: wikiCrumbs(project, { label: "Pages" }) },
      <>
        <ProjectTabs project={project} current="wiki" />
        <h1>Wiki pages</h1>
        {pages.length ? (
          <ul class="issuables">
            {pages.map((p) => (
              <li>
                <a href={`${wikiBase(project)}/${slugPath(p.slug)}`}>{p.title}</a> <span class="meta">{p.slug}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">This wiki has no pages.</p>
        )}
      </>,
    );
  });

  /** GitLab's /-/wikis/*id: the page by slug or title (Wiki#find_page), rendered; a missing page is 404. */
  web.get("/:project{.+}/-/wikis/:slug{.+}", { summary: "Web: a wiki page", params: WikiPageParams }, async (c) => {
    const { version_id } = await readParams(c, WikiPageParams);
    const project = await wikiProject(c);
    const slug = c.req.param("slug");
    const found = await findPage(c.var.db(), await findWiki(c.var.db(), { projectId: project.id }), slug, version_id);
    if (!found)
      return page(
        c,
        { title: `Page not found · Wiki · ${project.nameWithNamespace}`, crumbs: wikiCrumbs(project, { label: slug }) },
        <>
          <ProjectTabs project={project} current="wiki" />
          <h1>This wiki page does not exist</h1>
          <p>
            <a href={`${wikiBase(project)}/pages`}>See the wiki's pages</a>.
          </p>
        </>,
        404,
      );
    return page(
      c,
      { title: `${found.title} · Wiki · ${project.nameWithNamespace}`, crumbs: wikiCrumbs(project, { label: found.title }) },
      <>
        <ProjectTabs project={project} current="wiki" />
        <article class="wiki-page">
          <h1>{found.title}</h1>
          <p class="meta">
            Last commit <code>{found.commit.oid.slice(0, 8)}</code>: {found.commit.message.split("\n")[0]}
          </p>
          {await pageBody(c, project, found)}
        </article>
      </>,
    );
  });
}
