/** @jsxImportSource hono/jsx */
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { commitDiffs, findCommit, listCommits, repoOf, type FileDiff } from "../shared/git";
import { page } from "./layout";
import { Pager } from "./lists";
import { commitPath, commitsPath, commitTitle, projectCrumbs, treePath } from "./repository_links";
import { refAndPath, repositoryProject } from "./repository";

const PER_PAGE = 40;
const day = (at: Date | string) => new Date(at).toISOString().slice(0, 10);

/** GET /:project/-/commits/:ref(/*path): the history of a ref (or a path in it), newest first, 40 a page. */
export async function commitsPage(c: Ctx, fullPath: string, rest: string, opts: { path?: string; page: number }) {
  const project = await repositoryProject(c, fullPath);
  const { ref, path: restPath, commit: tip } = await refAndPath(c, project, rest);
  const path = opts.path ?? restPath;
  const result = await listCommits(c.var.db(), repoOf(project), { refName: tip.oid, path: path || null, offset: (opts.page - 1) * PER_PAGE, limit: PER_PAGE + 1 });
  if (result.kind !== "ok") throw notFound("Commit");
  const commits = result.commits.slice(0, PER_PAGE);
  return page(
    c,
    { title: `Commits · ${ref} · ${project.nameWithNamespace}`, crumbs: projectCrumbs(project, [{ label: "Commits" }]) },
    <>
      <h1>
        Commits on <code>{ref}</code>
        {path && (
          <>
            {" "}
            for <code>{path}</code>
          </>
        )}
      </h1>
      <p>
        <a href={treePath(project, ref, "")}>Browse files at {ref}</a>
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Commit</th>
            <th scope="col">Author</th>
            <th scope="col">Date</th>
            <th scope="col">SHA</th>
          </tr>
        </thead>
        <tbody>
          {commits.map((commit) => (
            <tr>
              <td>
                <a href={commitPath(project, commit.oid)}>{commitTitle(commit.message)}</a>
              </td>
              <td>{commit.authorName}</td>
              <td>{day(commit.authoredAt)}</td>
              <td>
                <code>{commit.oid.slice(0, 8)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager path={`${commitsPath(project, ref)}${path ? `?path=${encodeURIComponent(path)}` : ""}`} page={opts.page} more={result.commits.length > PER_PAGE} />
    </>,
  );
}

/** One file's unified diff as a table: hunk headers, added and removed lines marked (not by colour alone). */
export function DiffFile(props: { diff: FileDiff }) {
  const d = props.diff;
  const name = d.renamedFile ? `${d.oldPath} → ${d.newPath}` : d.newPath;
  const state = d.newFile ? "added" : d.deletedFile ? "deleted" : d.renamedFile ? "renamed" : "modified";
  const lines = d.diff ? d.diff.replace(/\n$/, "").split("\n") : [];
  return (
    <section class="box">
      <h3 style="margin-top:0">
        <code>{name}</code> <span class="badge">{state}</span>{" "}
        <span class="muted">
          +{d.additions} −{d.deletions}
        </span>
      </h3>
      {d.tooLarge ? (
        <p>This diff is too large to display.</p>
      ) : d.binary ? (
        <p>Binary file.</p>
      ) : lines.length === 0 ? (
        <p class="muted">No textual change.</p>
      ) : (
        <div class="code">
          <table class="diff">
            <tbody>
              {lines.map((line) => {
                const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
                return (
                  <tr class={kind}>
                    <td>{line}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** GET /:project/-/commit/:sha: the commit's message, author, parents and its diff against the first parent. */
export async function commitPage(c: Ctx, fullPath: string, sha: string) {
  const project = await repositoryProject(c, fullPath);
  const repo = repoOf(project);
  const commit = await findCommit(c.var.db(), repo, sha);
  if (!commit) throw notFound("Commit");
  const diffs = await commitDiffs(c.var.db(), repo, commit);
  const body = commit.message.slice(commitTitle(commit.message).length).trim();
  return page(
    c,
    { title: `${commitTitle(commit.message)} · ${project.nameWithNamespace}`, crumbs: projectCrumbs(project, [{ label: "Commits" }, { label: commit.oid.slice(0, 8) }]) },
    <>
      <h1>{commitTitle(commit.message)}</h1>
      {body && <pre>{body}</pre>}
      <p class="muted">
        Commit <code>{commit.oid}</code> authored by {commit.authorName} on {day(commit.authoredAt)}
        {commit.parents.length > 0 && (
          <>
            {" "}
            · Parent{commit.parents.length > 1 ? "s" : ""}{" "}
            {commit.parents.map((parent) => (
              <>
                <a href={commitPath(project, parent)}>
                  <code>{parent.slice(0, 8)}</code>
                </a>{" "}
              </>
            ))}
          </>
        )}
      </p>
      <p>
        <a href={treePath(project, commit.oid, "")}>Browse files</a> · {diffs.length} changed file{diffs.length === 1 ? "" : "s"} with {commit.additions} additions and{" "}
        {commit.deletions} deletions
      </p>
      {diffs.map((d) => (
        <DiffFile diff={d} />
      ))}
    </>,
  );
}
