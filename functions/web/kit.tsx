/** @jsxImportSource hono/jsx */
// What the issue, merge request and pipeline pages share: the project of the path, form bodies, the
// notes of an issuable and the comment form, labels, people, states and page links. Every value goes
// through JSX, which escapes it; the only raw HTML is the Markdown renderer's, which is sanitised
// (functions/shared/markdown/render.ts), and the diff lines' highlighting, escaped here.
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { allowed, type ProjectAbility, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { forbidden, notFound, unauthorized } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import type { Page } from "../kernel/pagination";
import type { router } from "../kernel/router";
import type { NoteRow } from "../shared/issuables/noteables";
import { csrfToken } from "./session";

/** The project of `/:project{.+}/-/…`, as `find_project!` finds it: unreadable or missing is 404. */
export function webProject(c: Ctx): Promise<ProjectWithAccess> {
  return findProject(c, c.req.param("project") ?? "");
}

/** `authorize!` for a page: 403, which the web router shows as its 404 page (as GitLab's pages do). */
export function authorizePage(c: Ctx, ability: ProjectAbility, project: ProjectWithAccess): void {
  if (!allowed(c.var.actor, ability, project)) throw c.var.actor ? forbidden() : notFound("Project");
}

/** A form body's fields, strings only (file fields are not used by these forms). */
export async function formFields(c: Ctx): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === "string") out[key] = value;
  return out;
}

/** Where a form sends the visitor after its POST: 303, so a reload does not post again. */
export function seeOther(c: Ctx, path: string): Response {
  return c.redirect(path, 303);
}

export const projectPath = (project: { fullPath: string }) => `/${project.fullPath}`;

/** UTC, to the minute, with the exact time in `<time datetime>`. */
export function When({ at }: { at: Date | string | null }) {
  if (!at) return <span>never</span>;
  const date = new Date(at);
  return <time datetime={date.toISOString()}>{date.toISOString().slice(0, 16).replace("T", " ")} UTC</time>;
}

export function UserLink({ user }: { user: { username: string; name: string } | null }) {
  if (!user) return <span>Ghost User</span>;
  return (
    <a href={`/${encodeURIComponent(user.username)}`} class="user">
      {user.name} <span class="username">@{user.username}</span>
    </a>
  );
}

export function People({ users, none }: { users: { username: string; name: string }[]; none: string }) {
  if (!users.length) return <span>{none}</span>;
  return (
    <ul class="inline">
      {users.map((u) => (
        <li>
          <UserLink user={u} />
        </li>
      ))}
    </ul>
  );
}

/** A label's colour is `#rrggbb` (validated on write); anything else is not used as a style. */
const safeColor = (color: string) => (/^#[0-9a-fA-F]{3,8}$/.test(color) ? color : "#6699cc");

export function Labels({ labels }: { labels: { title: string; color: string; textColor?: string }[] }) {
  if (!labels.length) return <span>None</span>;
  return (
    <ul class="inline labels">
      {labels.map((l) => (
        <li class="label" style={`border-color:${safeColor(l.color)}`}>
          {l.title}
        </li>
      ))}
    </ul>
  );
}

export function StateBadge({ state }: { state: string }) {
  const text = { opened: "Open", closed: "Closed", merged: "Merged", locked: "Locked" }[state] ?? state;
  return <span class={`badge state-${state}`}>{text}</span>;
}

/** A CI status, as GitLab words it. */
export function StatusBadge({ status }: { status: string | null }) {
  if (!status) return <span class="badge">none</span>;
  return <span class={`badge ci-${status}`}>{status.replace(/_/g, " ")}</span>;
}

/** HTML the Markdown renderer made (sanitised with GitLab's allow-list there). */
export function Markdown({ html }: { html: string | null }) {
  if (!html) return <p class="empty">No description provided.</p>;
  return <div class="md">{raw(html)}</div>;
}

/** Previous and next links of a list (`?page=`), keeping the other query parameters. */
export function Pager({ c, page, total }: { c: Ctx; page: Page; total: number }) {
  const url = new URL(c.req.url);
  const link = (n: number) => {
    url.searchParams.set("page", String(n));
    return `${url.pathname}?${url.searchParams.toString()}`;
  };
  const last = Math.max(1, Math.ceil(total / page.perPage));
  if (last === 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {page.page > 1 ? <a href={link(page.page - 1)} rel="prev">Previous</a> : null}
      <span>
        Page {page.page} of {last}
      </span>
      {page.page < last ? <a href={link(page.page + 1)} rel="next">Next</a> : null}
    </nav>
  );
}

/** A form that POSTs with its CSRF token. */
export function PostForm({ c, action, children, label, class: cls }: { c: Ctx; action: string; children?: Child; label?: string; class?: string }) {
  return (
    <form method="post" action={action} class={cls} aria-label={label}>
      <input type="hidden" name="authenticity_token" value={csrfToken(c)} />
      {children}
    </form>
  );
}

/** The notes of an issuable, oldest first; system notes as one line. `html` is each note rendered. */
export function Notes({ notes, html }: { notes: NoteRow[]; html: (string | null)[] }) {
  if (!notes.length) return <p class="empty">No comments yet.</p>;
  return (
    <ol class="notes">
      {notes.map((n, i) =>
        n.system ? (
          <li id={`note_${n.id}`} class="note system">
            <UserLink user={n.author} /> <span class="md-inline">{raw(html[i] ?? "")}</span> <When at={n.createdAt} />
          </li>
        ) : (
          <li id={`note_${n.id}`} class="note">
            <div class="note-head">
              <UserLink user={n.author} /> <When at={n.createdAt} />
              {n.confidential ? <span class="badge">internal</span> : null}
            </div>
            <Markdown html={html[i]} />
          </li>
        ),
      )}
    </ol>
  );
}

export function CommentForm({ c, action, allowed: may, signInPath }: { c: Ctx; action: string; allowed: boolean; signInPath: string }) {
  if (!c.var.actor)
    return (
      <p>
        <a href={signInPath}>Sign in</a> to comment.
      </p>
    );
  if (!may) return <p>You may not comment here.</p>;
  return (
    <PostForm c={c} action={action} label="Add a comment" class="comment-form">
      <label for="note-body">Comment</label>
      <textarea id="note-body" name="note[note]" rows={5} required></textarea>
      <button type="submit">Comment</button>
    </PostForm>
  );
}

/** `/users/sign_in?redirect_to=<this page>`: where a signed-out visitor goes to act. */
export function signInPath(c: Ctx): string {
  const url = new URL(c.req.url);
  return `/users/sign_in?redirect_to=${encodeURIComponent(url.pathname)}`;
}

/** A form that needs a user: an anonymous visitor is sent to sign in (the web router's 401). */
export function requireSignedIn(c: Ctx) {
  if (!c.var.actor) throw unauthorized();
  return c.var.actor;
}

/** The web router (routes.ts `webRoutes`), as the page files register on it. */
export type WebRouter = ReturnType<typeof router>;

/** Breadcrumbs of a project page: the namespace, the project, then the page's own. */
export function projectCrumbs(project: ProjectWithAccess, ...rest: { label: string; href?: string }[]) {
  return [{ label: project.namespace.name, href: `/${project.namespace.fullPath}` }, { label: project.name, href: projectPath(project) }, ...rest];
}

/**
 * What the shell's stylesheet (layout.tsx) does not style: the tabs, inline lists, the side facts,
 * notes, labels, states and the job log. Emitted with the tabs, so once per page of these files.
 */
const STYLE = `ul.inline{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem .75rem}
nav.tabs{border-bottom:1px solid #dcdcde;margin-bottom:.75rem}nav.tabs a[aria-current]{font-weight:700;text-decoration:none;color:#1f1e24}
dl.sidebar{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;border:1px solid #dcdcde;border-radius:4px;padding:.75rem}dl.sidebar dd{margin:0}
li.label{border:2px solid;border-radius:1rem;padding:0 .5rem;font-size:.85rem}.ref,.meta,.username{color:#535158}
.state-opened{background:#c3e6cd;color:#0a4020}.state-closed{background:#fdd4cd;color:#8d1300}.state-merged{background:#e1d8f9;color:#4b2d8f}
.ci-success{background:#c3e6cd;color:#0a4020}.ci-failed{background:#fdd4cd;color:#8d1300}.ci-running{background:#cbe2f9;color:#0b3b70}
ul.issuables,ol.notes,ol.commits{list-style:none;padding:0}ul.issuables>li,ol.commits>li{padding:.5rem 0;border-bottom:1px solid #dcdcde}
ol.notes>li{border:1px solid #dcdcde;border-radius:4px;padding:.5rem 1rem;margin:.5rem 0}ol.notes>li.system{border:0;padding:.25rem 1rem}
form.comment-form label,form[aria-label="New issue"] label{display:block;margin-top:.75rem;font-weight:600}form.comment-form button,form[aria-label="New issue"] button{margin-top:.5rem;display:block}
pre.log{background:#1f1e24;color:#ececef;padding:1rem;border-radius:4px;min-height:4rem;white-space:pre-wrap}pre.diff{border:1px solid #dcdcde;border-radius:4px;padding:.5rem}
.stages{display:flex;gap:1rem;flex-wrap:wrap}.stage{border:1px solid #dcdcde;border-radius:4px;padding:0 1rem;min-width:12rem}.stage ul{list-style:none;padding:0}
p.error{color:#8d1300}`;

/** Tabs of the project's issue, merge request, pipeline and wiki pages. */
export function ProjectTabs({ project, current }: { project: ProjectWithAccess; current: "issues" | "merge_requests" | "pipelines" | "wiki" }) {
  const base = projectPath(project);
  const tab = (key: typeof current, href: string, text: string) => (
    <li>
      <a href={href} aria-current={key === current ? "page" : undefined}>
        {text}
      </a>
    </li>
  );
  return (
    <>
      <style>{raw(STYLE)}</style>
      <nav class="tabs" aria-label="Project">
        <ul class="inline">
          <li>
            <a href={base}>{project.name}</a>
          </li>
          {tab("issues", `${base}/-/issues`, "Issues")}
          {tab("merge_requests", `${base}/-/merge_requests`, "Merge requests")}
          {tab("pipelines", `${base}/-/pipelines`, "Pipelines")}
          {tab("wiki", `${base}/-/wikis`, "Wiki")}
        </ul>
      </nav>
    </>
  );
}

/** One file's unified diff, each line classed by its first character. */
export function DiffFile({ diff }: { diff: { oldPath: string; newPath: string; diff: string; newFile: boolean; deletedFile: boolean; renamedFile: boolean } }) {
  const title = diff.renamedFile ? `${diff.oldPath} → ${diff.newPath}` : diff.newPath;
  const lines = diff.diff.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return (
    <section class="diff-file">
      <h3>
        {title} {diff.newFile ? <span class="badge">new</span> : null}
        {diff.deletedFile ? <span class="badge">deleted</span> : null}
      </h3>
      <pre class="diff">
        {lines.map((line) => (
          <span class={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx"}>{line + "\n"}</span>
        ))}
      </pre>
    </section>
  );
}

export { notFound };
