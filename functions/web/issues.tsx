/** @jsxImportSource hono/jsx */
// The issue pages (GitLab's /-/issues, /-/issues/new, /-/issues/:iid) and their forms: new issue,
// comment, close and reopen. Reads go through the API's finders and read rules (an issue the API hides
// is a 404 here too); writes call the API's services and send the same webhook events, so system notes,
// to-dos, events and hooks follow as they do for `POST /projects/:id/issues` and friends.
import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { forbidden, notFound } from "../kernel/errors";
import { pageOf, pageParams } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { baseUrl } from "../kernel/present";
import { checkRateLimit } from "../kernel/rate_limit";
import { loadIssueRows, loadProjectIssue, type IssueRow } from "../shared/issuables/issue_preload";
import { canCreateNote, canReadConfidentialNotes, checkNoteBody, loadNoteable } from "../shared/issuables/noteables";
import { canReadIssue, canUpdateIssue } from "../shared/issuables/policy";
import { renderMarkdown, renderMarkdownMany } from "../shared/markdown/render";
import { hookAttrsBefore, hookEvent, updateAction } from "../shared/webhooks";
import { clientIp, CREATE_RULES, CreateIssue, createIssueService, LIST_RULES, ListIssues, listIssueIds, UPDATE_RULES, UpdateIssue, updateIssueService } from "../issues/public";
import { createNote, listNotes, ListNotes } from "../notes/public";
import { CommentForm, Labels, Markdown, Notes, Pager, People, PostForm, ProjectTabs, StateBadge, UserLink, When, authorizePage, projectCrumbs, projectPath, requireSignedIn, seeOther, signInPath, webProject, type WebRouter } from "./kit";
import { page } from "./layout";
import { requireCsrf } from "./session";

const FormToken = { authenticity_token: p.string().optional() };
/** The list's filters: GitLab's `state` tabs and the page. */
export const IssueListParams = z.object({ state: p.oneOf("opened", "closed", "all").default("opened"), page: pageParams.shape.page });
/** The new issue form: Rails' `issue[title]`, `issue[description]`, `issue[confidential]`. */
export const NewIssueForm = z.object({
  ...FormToken,
  issue: z.object({ title: p.string(), description: p.string().optional(), confidential: p.bool().optional() }),
});
/** A comment: `note[note]`. */
export const CommentFormParams = z.object({ ...FormToken, note: z.object({ note: p.string() }) });
/** The close and reopen buttons send only the token. */
export const StateFormParams = z.object(FormToken);

const withAssigneeIds = (row: IssueRow) => ({ ...row, assigneeIds: row.assignees.map((a) => a.id) });

/** The issue of the path as the API finds it: missing, or hidden from the visitor, is 404. */
export async function webIssue(c: Ctx, project: ProjectWithAccess): Promise<IssueRow> {
  const { issue_iid } = validateParams({ issue_iid: c.req.param("iid") }, UpdateIssue.pick({ issue_iid: true }));
  const row = await loadProjectIssue(c.var.db(), project.id, issue_iid, c.var.actor);
  if (!row || !canReadIssue(c.var.actor, project, withAssigneeIds(row))) throw notFound("Issue");
  return row;
}

/**
 * An issuable's notes, oldest first, as `GET …/notes?sort=asc` reads them (confidential notes only for
 * who may read them), rendered in one pass. Differs from GitLab: the first 100 notes are shown.
 */
export async function loadNotes(c: Ctx, project: ProjectWithAccess, type: "Issue" | "MergeRequest", iid: number) {
  const noteable = await loadNoteable(c, { project }, type, iid);
  if (!noteable || !noteable.readable) throw notFound(type === "Issue" ? "Issue" : "Merge Request");
  const params = validateParams({ noteable_id: String(iid), sort: "asc", per_page: "100" }, ListNotes);
  const { rows } = await listNotes(c.var.db(), noteable, params, !canReadConfidentialNotes(c.var.actor, noteable), pageOf(params));
  const html = await renderMarkdownMany(c, rows.map((n) => n.note), { project });
  return { noteable, rows, html, mayComment: canCreateNote(c.var.actor, noteable) };
}

/**
 * A comment posted from a form: Notes::CreateService through the notes API's service, with its
 * checks (may comment, body length, the `notes_create` rate limit) and its webhook event.
 */
export async function postComment(c: Ctx, type: "Issue" | "MergeRequest", back: (project: ProjectWithAccess) => string): Promise<Response> {
  const params = await readParams(c, CommentFormParams);
  const actor = requireSignedIn(c);
  const project = await webProject(c);
  const iid = Number(c.req.param("iid"));
  const noteable = await loadNoteable(c, { project }, type, iid);
  if (!noteable || !noteable.readable) throw notFound(type === "Issue" ? "Issue" : "Merge Request");
  if (!canCreateNote(actor, noteable)) throw forbidden();
  const body = params.note.note;
  checkNoteBody(body);
  await checkRateLimit(c.var.db(), "notes_create", actor.user.id);
  const created = await createNote(c.var.db(), actor, noteable, { body, confidential: false, createdAt: null });
  if (created.kind === "note" && created.note.projectId !== null && !created.note.system)
    await hookEvent(c.env, baseUrl(c), { kind: "note", projectId: created.note.projectId, id: created.note.id, userId: actor.user.id });
  return seeOther(c, created.kind === "note" ? `${back(project)}#note_${created.note.id}` : back(project));
}

const STATES = ["opened", "closed", "all"] as const;

const issuesCrumbs = (project: ProjectWithAccess, ...rest: { label: string; href?: string }[]) =>
  projectCrumbs(project, { label: "Issues", href: `${projectPath(project)}/-/issues` }, ...rest);

function IssueList({ c, project, rows, state }: { c: Ctx; project: ProjectWithAccess; rows: IssueRow[]; state: string }) {
  const base = `${projectPath(project)}/-/issues`;
  return (
    <>
      <nav aria-label="Issue states">
        <ul class="inline">
          {STATES.map((s) => (
            <li>
              <a href={`${base}?state=${s}`} aria-current={s === state ? "page" : undefined}>
                {s === "opened" ? "Open" : s === "closed" ? "Closed" : "All"}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {c.var.actor ? (
        <p>
          <a href={`${base}/new`} class="button">
            New issue
          </a>
        </p>
      ) : null}
      {rows.length ? (
        <ul class="issuables">
          {rows.map((row) => (
            <li>
              <a href={`${base}/${row.iid}`}>{row.title}</a> <span class="ref">#{row.iid}</span> <StateBadge state={row.state} />{" "}
              {row.confidential ? <span class="badge">confidential</span> : null}
              <div class="meta">
                opened <When at={row.createdAt} /> by <UserLink user={row.author} /> · <Labels labels={row.labels} />
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No issues.</p>
      )}
    </>
  );
}

export function issuePages(web: WebRouter) {
  /** GitLab's /:project/-/issues: IssuesFinder with `state` (default opened), newest first, 20 a page. */
  web.get("/:project{.+}/-/issues", { summary: "Web: a project's issues", params: IssueListParams }, async (c) => {
    const { state, page: pageNumber } = await readParams(c, IssueListParams);
    const project = await webProject(c);
    authorizePage(c, "read_issue", project);
    const params = validateParams({ state, page: pageNumber, per_page: 20 }, ListIssues, LIST_RULES);
    const db = c.var.db();
    const { ids, total } = await listIssueIds(db, { kind: "project", projectId: project.id }, params, { orderBy: "created_at", sort: "desc" }, c.var.actor, pageOf(params), new Date());
    const rows = await loadIssueRows(db, ids, c.var.actor);
    return page(
      c,
      { title: `Issues · ${project.nameWithNamespace}`, crumbs: issuesCrumbs(project) },
      <>
        <ProjectTabs project={project} current="issues" />
        <h1>Issues</h1>
        <IssueList c={c} project={project} rows={rows} state={state} />
        <Pager c={c} page={pageOf(params)} total={total} />
      </>,
    );
  });

  /** GitLab's /:project/-/issues/new. */
  web.get("/:project{.+}/-/issues/new", { summary: "Web: the new issue form" }, async (c) => {
    const project = await webProject(c);
    requireSignedIn(c);
    authorizePage(c, "create_issue", project);
    const base = `${projectPath(project)}/-/issues`;
    return page(
      c,
      { title: `New issue · ${project.nameWithNamespace}`, crumbs: issuesCrumbs(project, { label: "New" }) },
      <>
        <ProjectTabs project={project} current="issues" />
        <h1>New issue</h1>
        <PostForm c={c} action={base} label="New issue">
          <label for="issue-title">Title</label>
          <input id="issue-title" name="issue[title]" required maxlength={255} />
          <label for="issue-description">Description (Markdown)</label>
          <textarea id="issue-description" name="issue[description]" rows={10}></textarea>
          <label>
            <input type="checkbox" name="issue[confidential]" value="true" /> This issue is confidential
          </label>
          <button type="submit">Create issue</button>
        </PostForm>
      </>,
    );
  });

  /** POST /:project/-/issues: Issues::CreateService, as `POST /projects/:id/issues` runs it. */
  web.post("/:project{.+}/-/issues", { summary: "Web: create an issue", params: NewIssueForm }, requireCsrf, async (c) => {
    const form = await readParams(c, NewIssueForm);
    const actor = requireSignedIn(c);
    const project = await webProject(c);
    authorizePage(c, "create_issue", project);
    const { title, description, confidential } = form.issue;
    const params = validateParams({ title, ...(description ? { description } : {}), ...(confidential ? { confidential } : {}) }, CreateIssue, CREATE_RULES);
    const db = c.var.db();
    await checkRateLimit(db, "issues_create", actor.user.id);
    const request = { userAgent: c.req.header("user-agent") || null, ipAddress: clientIp(c.req.header("cf-connecting-ip"), c.req.header("x-forwarded-for")) };
    const id = await createIssueService(db, project, actor, params, request);
    await hookEvent(c.env, baseUrl(c), { kind: "issue", projectId: project.id, id, action: "open", userId: actor.user.id });
    const [row] = await loadIssueRows(db, [id], actor);
    return seeOther(c, `${projectPath(project)}/-/issues/${row.iid}`);
  });

  /** GitLab's /:project/-/issues/:iid: the description and notes rendered, labels, assignees, state. */
  web.get("/:project{.+}/-/issues/:iid{[0-9]+}", { summary: "Web: an issue" }, async (c) => {
    const project = await webProject(c);
    const row = await webIssue(c, project);
    const [description, notes] = await Promise.all([row.description ? renderMarkdown(c, row.description, { project }) : null, loadNotes(c, project, "Issue", row.iid)]);
    const here = `${projectPath(project)}/-/issues/${row.iid}`;
    const mayUpdate = !!c.var.actor && canUpdateIssue(c.var.actor, project, withAssigneeIds(row));
    return page(
      c,
      { title: `${row.title} (#${row.iid}) · Issues · ${project.nameWithNamespace}`, crumbs: issuesCrumbs(project, { label: `#${row.iid}` }) },
      <>
        <ProjectTabs project={project} current="issues" />
        <article class="issuable">
          <h1>
            {row.title} <span class="ref">#{row.iid}</span>
          </h1>
          <p>
            <StateBadge state={row.state} /> {row.confidential ? <span class="badge">confidential</span> : null} Opened <When at={row.createdAt} /> by{" "}
            <UserLink user={row.author} />
            {row.closedAt ? (
              <>
                {" "}
                · closed <When at={row.closedAt} />
                {row.closedBy ? (
                  <>
                    {" "}
                    by <UserLink user={row.closedBy} />
                  </>
                ) : null}
              </>
            ) : null}
          </p>
          <dl class="sidebar">
            <dt>Assignees</dt>
            <dd>
              <People users={row.assignees} none="None" />
            </dd>
            <dt>Labels</dt>
            <dd>
              <Labels labels={row.labels} />
            </dd>
            <dt>Milestone</dt>
            <dd>{row.milestone ? row.milestone.title : "None"}</dd>
            <dt>Due date</dt>
            <dd>{row.dueDate ? String(row.dueDate) : "None"}</dd>
          </dl>
          <Markdown html={description} />
          {mayUpdate ? (
            <PostForm c={c} action={`${here}/${row.state === "closed" ? "reopen" : "close"}`} label={row.state === "closed" ? "Reopen issue" : "Close issue"}>
              <button type="submit">{row.state === "closed" ? "Reopen issue" : "Close issue"}</button>
            </PostForm>
          ) : null}
        </article>
        <section aria-labelledby="activity">
          <h2 id="activity">Activity</h2>
          <Notes notes={notes.rows} html={notes.html} />
          <CommentForm c={c} action={`${here}/notes`} allowed={notes.mayComment} signInPath={signInPath(c)} />
        </section>
      </>,
    );
  });

  /** POST /:project/-/issues/:iid/notes: a comment (Notes::CreateService). */
  web.post("/:project{.+}/-/issues/:iid{[0-9]+}/notes", { summary: "Web: comment on an issue", params: CommentFormParams }, requireCsrf, (c) =>
    postComment(c, "Issue", (project) => `${projectPath(project)}/-/issues/${c.req.param("iid")}`),
  );

  /**
   * POST /:project/-/issues/:iid/close and /reopen: Issues::UpdateService with `state_event`, as
   * `PUT /projects/:id/issues/:iid` runs it. Differs from GitLab: its page sends a PUT from a script;
   * here a plain form POSTs to its own path, so closing works without JavaScript.
   */
  for (const event of ["close", "reopen"] as const) {
    web.post(`/:project{.+}/-/issues/:iid{[0-9]+}/${event}`, { summary: `Web: ${event} an issue`, params: StateFormParams }, requireCsrf, async (c) => {
      await readParams(c, StateFormParams);
      const actor = requireSignedIn(c);
      const project = await webProject(c);
      const current = await webIssue(c, project);
      if (!canUpdateIssue(actor, project, withAssigneeIds(current))) throw forbidden();
      const params = validateParams({ issue_iid: String(current.iid), state_event: event }, UpdateIssue, UPDATE_RULES);
      const db = c.var.db();
      const changed = await updateIssueService(db, project, actor, current, params, (key) => key === "state_event");
      if (changed) {
        const [updated] = await loadIssueRows(db, [current.id], actor);
        await hookEvent(c.env, baseUrl(c), {
          kind: "issue",
          projectId: project.id,
          id: current.id,
          action: updateAction(current.state, updated.state),
          userId: actor.user.id,
          before: hookAttrsBefore(current),
        });
      }
      return seeOther(c, `${projectPath(project)}/-/issues/${current.iid}`);
    });
  }
}
