/** @jsxImportSource hono/jsx */
import { raw } from "hono/html";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { visibilityName } from "../kernel/access";
import type { Ctx } from "../kernel/env";
import { baseUrl } from "../kernel/present";
import { languageShares } from "../projects/public";
import type { GitCommitRow } from "../../db/schema";
import { decodeUtf8, findCommit, listTree, objectSizes, readFileAt, repoOf } from "../shared/git";
import { renderMarkdown } from "../shared/markdown/render";
import { page } from "./layout";
import { markdownForPage } from "./markdown";
import { blobPath, CommitLine, projectCrumbs, treePath } from "./repository_links";

/** GitLab's README preference: a Markdown README first, then any other README at the root. */
function readmeEntry(names: string[]): string | null {
  const readmes = names.filter((n) => /^readme(\.|$)/i.test(n));
  return readmes.find((n) => /\.(md|markdown)$/i.test(n)) ?? readmes[0] ?? null;
}

/** A stable colour for a language's bar (GitLab takes linguist's colours; here a hash of the name). */
function colorOf(name: string): string {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h} 55% 45%)`;
}

/**
 * GET /:namespace/:project: the project's description, clone URL, last commit of the default branch,
 * languages (as GET /projects/:id/languages) and README rendered by the Markdown renderer of the
 * API's `*_html` fields. Visitors without `download_code` see the project without its repository.
 */
export async function projectHome(c: Ctx, project: ProjectWithAccess) {
  const db = c.var.db();
  const repo = repoOf(project);
  const readsCode = allowed(c.var.actor, "download_code", project);
  const head: GitCommitRow | null = readsCode && repo.defaultBranch ? await findCommit(db, repo, repo.defaultBranch) : null;
  let languages: [string, number][] = [];
  let readme: { path: string; html: string | null; text: string } | null = null;
  let rootNames: { name: string; type: string }[] = [];
  if (head) {
    const entries = (await listTree(db, repo, head.tree, "", true)) ?? [];
    rootNames = entries.filter((e) => !e.path.includes("/")).map((e) => ({ name: e.name, type: e.type }));
    const blobs = entries.filter((e) => e.type === "blob" && e.mode !== "120000");
    const sizes = await objectSizes(db, repo.poolId, blobs.map((b) => b.oid));
    languages = Object.entries(languageShares(blobs.map((b) => ({ path: b.path, size: sizes.get(b.oid) ?? 0 }))));
    const name = readmeEntry(rootNames.filter((e) => e.type === "blob").map((e) => e.name));
    const file = name ? await readFileAt(db, repo, head.tree, name) : null;
    if (file && file.size <= 512 * 1024) {
      const text = decodeUtf8(file.content);
      const html = /\.(md|markdown)$/i.test(name!) ? await renderMarkdown(c, text, { project }) : null;
      readme = { path: name!, html, text };
    }
  }
  const cloneUrl = `${baseUrl(c)}/${project.fullPath}.git`;
  const ref = repo.defaultBranch ?? "";
  return page(
    c,
    { title: project.nameWithNamespace, crumbs: projectCrumbs(project) },
    <>
      <h1>{project.name}</h1>
      <p class="muted">
        <span class="badge">{visibilityName(project.visibilityLevel)}</span> · Project ID: {project.id} · ★ {project.starCount}
      </p>
      {project.description && <p>{project.description}</p>}
      {readsCode && (
        <section class="box" aria-labelledby="clone">
          <h2 id="clone">Clone</h2>
          <label for="clone-url">Clone with HTTPS</label>
          <input id="clone-url" type="text" readonly value={cloneUrl} />
        </section>
      )}
      {readsCode && !head && <p class="muted">The repository for this project is empty.</p>}
      {head && (
        <>
          <section aria-labelledby="last-commit">
            <h2 id="last-commit">Last commit</h2>
            <CommitLine project={project} commit={head} />
          </section>
          <p>
            <a href={treePath(project, ref, "")}>Files</a> · <a href={`/${project.fullPath}/-/commits/${encodeURIComponent(ref)}`}>Commits</a> · Branch:{" "}
            <code>{ref}</code>
          </p>
          {languages.length > 0 && (
            <section aria-labelledby="languages">
              <h2 id="languages">Languages</h2>
              <div class="lang" aria-hidden="true">
                {languages.map(([name, share]) => (
                  <span style={`width:${share}%;background:${colorOf(name)}`} />
                ))}
              </div>
              <ul>
                {languages.map(([name, share]) => (
                  <li>
                    {name} {share}%
                  </li>
                ))}
              </ul>
            </section>
          )}
          <section aria-labelledby="files">
            <h2 id="files">Files</h2>
            <ul>
              {rootNames.map((e) => (
                <li>
                  <a href={e.type === "tree" ? treePath(project, ref, e.name) : blobPath(project, ref, e.name)}>{e.type === "tree" ? `${e.name}/` : e.name}</a>
                </li>
              ))}
            </ul>
          </section>
          {readme && (
            <section class="box" aria-labelledby="readme">
              <h2 id="readme">{readme.path}</h2>
              {readme.html !== null ? <div class="md">{raw(markdownForPage(readme.html))}</div> : <pre>{readme.text}</pre>}
            </section>
          )}
        </>
      )}
    </>,
  );
}
