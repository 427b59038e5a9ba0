/** @jsxImportSource hono/jsx */
import type { GitCommitRow } from "../../db/schema";
import { authorize, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { decodeUtf8, isBinary, listTree, readFileAt, repoOf, resolveCommitRows } from "../shared/git";
import { HIGHLIGHT_SCRIPT, languageOf, MAX_HIGHLIGHT_BYTES } from "./highlight";
import { page, scriptNonce } from "./layout";
import { blobPath, CommitLine, commitsPath, projectCrumbs, rawPath, treePath } from "./repository_links";

/** Blobs larger than this are offered raw only (GitLab collapses large blobs too). */
const MAX_SHOWN_BYTES = 1024 * 1024;

/**
 * The project of a repository page, with `download_code` (the API's repository endpoints): what the
 * visitor may not read is the 404 page.
 */
export async function repositoryProject(c: Ctx, fullPath: string): Promise<ProjectWithAccess> {
  const project = await findProject(c, fullPath);
  authorize(c, "download_code", project);
  return project;
}

/**
 * ExtractsRef: `<ref>/<path>` where the ref may itself hold slashes. Every leading run of segments
 * is resolved in one go and the longest that names a commit is the ref (GitLab picks the longest
 * matching ref name too).
 */
export async function refAndPath(c: Ctx, project: ProjectWithAccess, rest: string): Promise<{ ref: string; path: string; commit: GitCommitRow }> {
  const segments = rest.split("/").filter((s) => s !== "");
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join("/")).slice(0, 32);
  if (!candidates.length) throw notFound("Tree");
  const found = await resolveCommitRows(c.var.db(), repoOf(project), candidates);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const commit = found.get(candidates[i]);
    if (commit) return { ref: candidates[i], path: segments.slice(i + 1).join("/"), commit };
  }
  throw notFound("Tree");
}

/** Breadcrumbs of a path in the repository: the ref, then each directory. */
function pathCrumbs(project: ProjectWithAccess, ref: string, path: string) {
  const parts = path ? path.split("/") : [];
  const crumbs: { label: string; href?: string }[] = [{ label: ref, href: parts.length ? treePath(project, ref, "") : undefined }];
  parts.forEach((part, i) => {
    const isLast = i === parts.length - 1;
    crumbs.push({ label: part, href: isLast ? undefined : treePath(project, ref, parts.slice(0, i + 1).join("/")) });
  });
  return projectCrumbs(project, crumbs);
}

/** GET /:project/-/tree/:ref/*path: the directory's entries, directories first, and the ref's last commit. */
export async function treePage(c: Ctx, fullPath: string, rest: string) {
  const project = await repositoryProject(c, fullPath);
  const { ref, path, commit } = await refAndPath(c, project, rest);
  const entries = await listTree(c.var.db(), repoOf(project), commit.tree, path, false);
  if (!entries) throw notFound("Tree");
  const sorted = [...entries].sort((a, b) => (a.type === b.type ? 0 : a.type === "tree" ? -1 : b.type === "tree" ? 1 : 0));
  const parent = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  return page(
    c,
    { title: `${path || "Files"} · ${ref} · ${project.nameWithNamespace}`, crumbs: pathCrumbs(project, ref, path) },
    <>
      <h1>{path ? `${path}/` : "Files"}</h1>
      <CommitLine project={project} commit={commit} />
      <p>
        <a href={commitsPath(project, ref)}>History</a>
      </p>
      <table>
        <caption class="muted" style="text-align:left">
          Entries of {path || "the root"} at {ref}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        <tbody>
          {path && (
            <tr>
              <td>
                <a href={treePath(project, ref, parent)}>..</a>
              </td>
              <td>parent directory</td>
            </tr>
          )}
          {sorted.map((entry) => (
            <tr>
              <td>
                {entry.type === "commit" ? (
                  <span>{entry.name}</span>
                ) : (
                  <a href={entry.type === "tree" ? treePath(project, ref, entry.path) : blobPath(project, ref, entry.path)}>{entry.type === "tree" ? `${entry.name}/` : entry.name}</a>
                )}
              </td>
              <td>{entry.type === "tree" ? "directory" : entry.type === "commit" ? "submodule" : "file"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>,
  );
}

/**
 * Line numbers beside the text, one `<pre>` each, so that highlighting can span lines. A file of a
 * known language names it (`data-language`) for the highlighter script, which the page then loads.
 */
function CodeView(props: { c: Ctx; name: string; text: string }) {
  const lines = props.text.endsWith("\n") ? props.text.slice(0, -1).split("\n") : props.text.split("\n");
  const language = props.text.length <= MAX_HIGHLIGHT_BYTES ? languageOf(props.name) : null;
  return (
    <div class="code">
      <table>
        <tbody>
          <tr>
            <td class="ln">
              <pre aria-hidden="true">{lines.map((_, i) => `${i + 1}\n`).join("")}</pre>
            </td>
            <td>
              <pre>
                <code data-language={language ?? undefined}>{props.text}</code>
              </pre>
            </td>
          </tr>
        </tbody>
      </table>
      {language && <script src={HIGHLIGHT_SCRIPT} nonce={scriptNonce(props.c)} defer />}
    </div>
  );
}

/** GET /:project/-/blob/:ref/*path: the file, syntax highlighted; binary and large files link to raw. */
export async function blobPage(c: Ctx, fullPath: string, rest: string) {
  const project = await repositoryProject(c, fullPath);
  const { ref, path, commit } = await refAndPath(c, project, rest);
  const file = path ? await readFileAt(c.var.db(), repoOf(project), commit.tree, path) : null;
  if (!file) throw notFound("File");
  const name = path.slice(path.lastIndexOf("/") + 1);
  const binary = isBinary(file.content);
  const tooLarge = file.size > MAX_SHOWN_BYTES;
  return page(
    c,
    { title: `${path} · ${ref} · ${project.nameWithNamespace}`, crumbs: pathCrumbs(project, ref, path) },
    <>
      <h1>{name}</h1>
      <CommitLine project={project} commit={commit} />
      <p class="muted">
        {file.size} bytes · <a href={rawPath(project, ref, path)}>Open raw</a> · <a href={`${commitsPath(project, ref)}?path=${encodeURIComponent(path)}`}>History</a>
      </p>
      {binary || tooLarge ? <p>{binary ? "This file is binary." : "This file is too large to display."} Open it raw to see its content.</p> : <CodeView c={c} name={name} text={decodeUtf8(file.content)} />}
    </>,
  );
}

/**
 * GET /:project/-/raw/:ref/*path: the bytes. Text is `text/plain` and everything runs in a CSP
 * sandbox, so an HTML or SVG file of the repository never runs script on this origin.
 */
export async function rawBlob(c: Ctx, fullPath: string, rest: string) {
  const project = await repositoryProject(c, fullPath);
  const { path, commit } = await refAndPath(c, project, rest);
  const file = path ? await readFileAt(c.var.db(), repoOf(project), commit.tree, path) : null;
  if (!file) throw notFound("File");
  const name = path.slice(path.lastIndexOf("/") + 1);
  return c.body(new Uint8Array(file.content), 200, {
    "Content-Type": isBinary(file.content) ? "application/octet-stream" : "text/plain; charset=utf-8",
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Content-Disposition": `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
    "Cache-Control": "private, no-store",
  });
}
