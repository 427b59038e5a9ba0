/** @jsxImportSource hono/jsx */
import type { GitCommitRow } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";

/** A path or ref in a URL: each segment percent-encoded, the slashes kept (GitLab's paths). */
export const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

export const treePath = (project: { fullPath: string }, ref: string, path: string) =>
  `/${project.fullPath}/-/tree/${encodePath(ref)}${path ? `/${encodePath(path)}` : ""}`;
export const blobPath = (project: { fullPath: string }, ref: string, path: string) => `/${project.fullPath}/-/blob/${encodePath(ref)}/${encodePath(path)}`;
export const rawPath = (project: { fullPath: string }, ref: string, path: string) => `/${project.fullPath}/-/raw/${encodePath(ref)}/${encodePath(path)}`;
export const commitPath = (project: { fullPath: string }, sha: string) => `/${project.fullPath}/-/commit/${sha}`;
export const commitsPath = (project: { fullPath: string }, ref: string) => `/${project.fullPath}/-/commits/${encodePath(ref)}`;

/** Breadcrumbs of a project page: its namespaces, the project, then what the page adds. */
export function projectCrumbs(project: ProjectWithAccess, more: { label: string; href?: string }[] = []) {
  const parts = project.fullPath.split("/");
  const crumbs = parts.slice(0, -1).map((part, i) => ({ label: part, href: `/${parts.slice(0, i + 1).join("/")}` }));
  crumbs.push({ label: project.name, href: more.length ? `/${project.fullPath}` : undefined } as { label: string; href: string });
  return [...crumbs, ...more];
}

/** The first line of a commit message (`Commit#title`). */
export const commitTitle = (message: string) => message.split("\n", 1)[0];

export function CommitLine(props: { project: { fullPath: string }; commit: GitCommitRow }) {
  const { commit } = props;
  return (
    <p>
      <a href={commitPath(props.project, commit.oid)}>{commitTitle(commit.message)}</a>
      <br />
      <span class="muted">
        {commit.authorName} authored <time datetime={new Date(commit.authoredAt).toISOString()}>{new Date(commit.authoredAt).toISOString().slice(0, 16).replace("T", " ")}</time> ·{" "}
        <code>{commit.oid.slice(0, 8)}</code>
      </span>
    </p>
  );
}
