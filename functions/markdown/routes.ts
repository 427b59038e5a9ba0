import { canReadProject } from "../kernel/abilities";
import { notFound } from "../kernel/errors";
import { projectWithAccess } from "../kernel/lookup";
import { readParams } from "../kernel/params";
import { router } from "../kernel/router";
import { renderMarkdown } from "../shared/markdown/render";
import { Markdown, markdown } from "../entities/markdown";
import { RenderMarkdown } from "./params";

/**
 * The Markdown API (lib/api/markdown.rb): `authenticate!` (the `authenticate_markdown_api` flag is on
 * in 15.4; the router answers 401 to anonymous POSTs), and a `read_api` token may call it, since it
 * only reads.
 */
export const markdownRoutes = router({ readApiWrites: true });

/**
 * POST /markdown: `gfm` picks GitLab Flavored Markdown (else plain CommonMark, GitLab's
 * :plain_markdown pipeline); `project` is the context of references, by full path, and a project the
 * caller may not read is `404 Project Not Found` whether or not `gfm` is set.
 */
markdownRoutes.post("/markdown", { params: RenderMarkdown, response: Markdown, status: 201 }, async (c) => {
  const params = await readParams(c, RenderMarkdown);
  let project = null;
  if (params.project !== undefined) {
    // `Project.find_by_full_path`: a path, never an id. Differs from GitLab: an old path of a renamed or
    // moved project finds it (kernel/lookup.ts follows redirects), where GitLab's call does not.
    project = params.project.includes("/") ? await projectWithAccess(c.var.db(), c.var.actor?.user.id ?? null, { path: params.project }) : null;
    if (!project || !canReadProject(c.var.actor, project)) throw notFound("Project");
  }
  const html = await renderMarkdown(c, params.text, { project, gfm: params.gfm ?? false });
  return c.json(markdown(html), 201);
});
