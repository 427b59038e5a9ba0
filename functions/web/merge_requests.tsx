/** @jsxImportSource hono/jsx */
// The merge request pages (GitLab's /-/merge_requests, /-/merge_requests/:iid with its commits and
// diffs tabs) and their forms: comment, close, reopen, merge. Reads go through the API's queries and
// read rules; writes call the API's services (MergeRequests::UpdateService, the merge service) and
// send the same webhook events as `PUT …/merge_requests/:iid` and `PUT …/merge`.
import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { forbidden, notFound } from "../kernel/errors";
import { pageOf, pageParams } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { baseUrl } from "../kernel/present";
import { loadApprovalState } from "../shared/approvals/state";
import { repoOf } from "../shared/git";
import { canReadMergeRequest, canUpdateMergeRequest } from "../shared/issuables/policy";
import { renderMarkdown } from "../shared/markdown/render";
import { canMergeInto, listProtections } from "../shared/protected_branches/access";
import { hookAttrsBefore, hookEvent, hookEvents, updateAction } from "../shared/webhooks";
import {
  afterMergeHooks,
  headPipelineRow,
  latestVersion,
  limitDiffs,
  listMergeRequests,
  ListProjectMergeRequests,
  mergeMergeRequest,
  mergeRequestById,
  mergeRequestByIid,
  MR_LIST_RULES,
  refreshMergeRequest,
  updateMergeRequest,
  versionCommits,
  versionDiffs,
} from "../merge_requests/public";
import { CommentForm, DiffFile, Labels, Markdown, Notes, Pager, People, PostForm, ProjectTabs, StateBadge, StatusBadge, UserLink, When, authorizePage, projectCrumbs, projectPath, requireSignedIn, seeOther, signInPath, webProject, type WebRouter } from "./kit";
import { CommentFormParams, loadNotes, postComment, StateFormParams } from "./issues";
import { page } from "./layout";
import { requireCsrf } from "./session";

/** The list's filters: GitLab's `state` tabs and the page. */
export const MergeRequestListParams = z.object({ state: p.oneOf("opened", "merged", "closed", "all").default("opened"), page: pageParams.shape.page });
/** The merge form: the head the page showed, and the two options GitLab's widget offers. */
export const MergeFormParams = z.object({
  authenticity_token: p.string().optional(),
  sha: p.string().optional(),
  should_remove_source_branch: p.bool().optional(),
  squash: p.bool().optional(),
});

const IidParam = z.object({ iid: p.int() });

type Row = NonNullable<Awaited<ReturnType<typeof mergeRequestByIid>>>;

const withPeople = (row: Row) => ({ ...row, assigneeIds: row.assignees.map((a) => a.id), reviewerIds: row.reviewers.map((r) => r.id) });

/**
 * The merge request of the path, its mergeability refreshed as the API's GET does. Missing, or one the
 * visitor may not read, is 404 (the API answers 403 for the latter; a page hides it).
 */
async function webMergeRequest(c: Ctx, project: ProjectWithAccess): Promise<Row> {
  const { iid } = validateParams({ iid: c.req.param("iid") }, IidParam);
  const db = c.var.db();
  let row = await mergeRequestByIid(db, c.var.actor, project.id, iid);
  if (!row || !canReadMergeRequest(c.var.actor, project, { authorId: row.authorId, assigneeIds: row.assignees.map((a) => a.id) })) throw notFound("Merge Request");
  if ((await refreshMergeRequest(db, project, row)) !== row) row = await mergeRequestById(db, c.var.actor, row.id);
  return row;
}

const STATES = ["opened", "merged", "closed", "all"] as const;
const mrCrumbs = (project: ProjectWithAccess, ...rest: { label: string; href?: string }[]) =>
  projectCrumbs(project, { label: "Merge requests", href: `${projectPath(project)}/-/merge_requests` }, ...rest);

const STATE_NAMES: Record<(typeof STATES)[number], string> = { opened: "Open", merged: "Merged", closed: "Closed", all: "All" };

function Header({ c, project, row, current }: { c: Ctx; project: ProjectWithAccess; row: Row; current: "overview" | "commits" | "diffs" }) {
  const here = `${projectPath(project)}/-/merge_requests/${row.iid}`;
  const tab = (key: typeof current, href: string, text: string) => (
    <li>
      <a href={href} aria-current={key === current ? "page" : undefined}>
        {text}
      </a>
    </li>
  );
  return (
    <>
      <ProjectTabs project={project} current="merge_requests" />
      <h1>
        {row.draft ? "Draft: " : ""}
        {row.title} <span class="ref">!{row.iid}</span>
      </h1>
      <p>
        <StateBadge state={row.state} /> <UserLink user={row.author} /> requested to merge <code>{row.sourceBranch}</code> into <code>{row.targetBranch}</code>{" "}
        <When at={row.createdAt} />
      </p>
      <nav class="tabs" aria-label="Merge request">
        <ul class="inline">
          {tab("overview", here, "Overview")}
          {tab("commits", `${here}/commits`, "Commits")}
          {tab("diffs", `${here}/diffs`, "Changes")}
        </ul>
      </nav>
    </>
  );
}

/**
 * Why a merge was refused, in words (the API answers 405, 406 and 409 for these). Differs from GitLab:
 * its widget shows these states before the button; here the button posts and the answer says why (422).
 */
const MERGE_REFUSALS: Partial<Record<string, string>> = {
  not_allowed: "This merge request cannot be merged now: it is a draft or not open, or its pipeline must succeed first.",
  cannot_be_merged: "The branches cannot be merged: they conflict, the approvals are missing, or a fast-forward is impossible.",
  sha_mismatch: "The source branch changed since the page was shown. Reload the page, review the changes and merge again.",
  failed: "The merge failed: the branches changed meanwhile, or they conflict.",
};

function MergeRefused({ project, iid, text }: { project: ProjectWithAccess; iid: number; text: string }) {
  return (
    <>
      <h1>Not merged</h1>
      <p class="alert">{text}</p>
      <p>
        <a href={`${projectPath(project)}/-/merge_requests/${iid}`}>Back to the merge request</a>
      </p>
    </>
  );
}

export function mergeRequestPages(web: WebRouter) {
  /** GitLab's /:project/-/merge_requests: MergeRequestsFinder with `state` (default opened), newest first. */
  web.get("/:project{.+}/-/merge_requests", { summary: "Web: a project's merge requests", params: MergeRequestListParams }, async (c) => {
    const { state, page: pageNumber } = await readParams(c, MergeRequestListParams);
    const project = await webProject(c);
    authorizePage(c, "read_merge_request", project);
    const params = validateParams({ state, page: pageNumber, per_page: 20 }, ListProjectMergeRequests, MR_LIST_RULES);
    const { rows, total } = await listMergeRequests(c.var.db(), c.var.actor, { projectId: project.id }, params, pageOf(params));
    const base = `${projectPath(project)}/-/merge_requests`;
    return page(
      c,
      { title: `Merge requests · ${project.nameWithNamespace}`, crumbs: mrCrumbs(project) },
      <>
        <ProjectTabs project={project} current="merge_requests" />
        <h1>Merge requests</h1>
        <nav aria-label="Merge request states">
          <ul class="inline">
            {STATES.map((s) => (
              <li>
                <a href={`${base}?state=${s}`} aria-current={s === state ? "page" : undefined}>
                  {STATE_NAMES[s]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {rows.length ? (
          <ul class="issuables">
            {rows.map((row) => (
              <li>
                <a href={`${base}/${row.iid}`}>{row.title}</a> <span class="ref">!{row.iid}</span> <StateBadge state={row.state} />
                <div class="meta">
                  <code>{row.sourceBranch}</code> → <code>{row.targetBranch}</code> · opened <When at={row.createdAt} /> by <UserLink user={row.author} /> · <Labels labels={row.labels} />
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">No merge requests.</p>
        )}
        <Pager c={c} page={pageOf(params)} total={total} />
      </>,
    );
  });

  /** GitLab's /:project/-/merge_requests/:iid: overview, pipeline, approvals, merge and comment forms. */
  web.get("/:project{.+}/-/merge_requests/:iid{[0-9]+}", { summary: "Web: a merge request" }, async (c) => {
    const project = await webProject(c);
    const row = await webMergeRequest(c, project);
    const db = c.var.db();
    const [description, notes, pipeline, approvals, protections] = await Promise.all([
      row.description ? renderMarkdown(c, row.description, { project }) : null,
      loadNotes(c, project, "MergeRequest", row.iid),
      project.jobsEnabled ? headPipelineRow(db, row) : null,
      loadApprovalState(db, c.var.actor, project, row),
      listProtections(db, project.id),
    ]);
    const here = `${projectPath(project)}/-/merge_requests/${row.iid}`;
    const actor = c.var.actor;
    const mayUpdate = !!actor && canUpdateMergeRequest(actor, project, withPeople(row));
    const mayMerge = row.state === "opened" && canMergeInto(actor, project, protections, row.targetBranch);
    const state = approvals.state;
    return page(
      c,
      { title: `${row.title} (!${row.iid}) · Merge requests · ${project.nameWithNamespace}`, crumbs: mrCrumbs(project, { label: `!${row.iid}` }) },
      <>
        <Header c={c} project={project} row={row} current="overview" />
        <dl class="sidebar">
          <dt>Assignees</dt>
          <dd>
            <People users={row.assignees} none="None" />
          </dd>
          <dt>Reviewers</dt>
          <dd>
            <People users={row.reviewers} none="None" />
          </dd>
          <dt>Labels</dt>
          <dd>
            <Labels labels={row.labels} />
          </dd>
          <dt>Pipeline</dt>
          <dd>
            {pipeline ? (
              <a href={`${projectPath(project)}/-/pipelines/${pipeline.id}`}>
                <StatusBadge status={pipeline.status} /> #{pipeline.id}
              </a>
            ) : (
              "No pipeline"
            )}
          </dd>
          <dt>Approvals</dt>
          <dd>
            {state.approved ? "Approved" : `${state.approvalsLeft} of ${state.approvalsRequired} approvals left`}
            {state.approvedBy.length ? (
              <>
                {" "}
                · approved by <People users={state.approvedBy.map((a) => a.user)} none="" />
              </>
            ) : null}
          </dd>
          <dt>Merge status</dt>
          <dd>{row.mergeStatus.replace(/_/g, " ")}</dd>
          {row.state === "merged" ? (
            <>
              <dt>Merged</dt>
              <dd>
                <When at={row.mergedAt} /> by <UserLink user={row.mergedBy} /> {row.mergeCommitSha ? <code>{row.mergeCommitSha.slice(0, 8)}</code> : null}
              </dd>
            </>
          ) : null}
        </dl>
        <Markdown html={description} />
        {row.mergeError ? <p class="error">{row.mergeError}</p> : null}
        {mayMerge ? (
          <PostForm c={c} action={`${here}/merge`} label="Merge" class="merge-form">
            <input type="hidden" name="sha" value={row.sha ?? ""} />
            <label>
              <input type="checkbox" name="should_remove_source_branch" value="true" checked={!!row.forceRemoveSourceBranch} /> Delete source branch
            </label>
            <label>
              <input type="checkbox" name="squash" value="true" checked={row.squash} /> Squash commits
            </label>
            <button type="submit">Merge</button>
          </PostForm>
        ) : null}
        {mayUpdate && row.state !== "merged" ? (
          <PostForm c={c} action={`${here}/${row.state === "closed" ? "reopen" : "close"}`} label={row.state === "closed" ? "Reopen merge request" : "Close merge request"}>
            <button type="submit">{row.state === "closed" ? "Reopen merge request" : "Close merge request"}</button>
          </PostForm>
        ) : null}
        <section aria-labelledby="activity">
          <h2 id="activity">Activity</h2>
          <Notes notes={notes.rows} html={notes.html} />
          <CommentForm c={c} action={`${here}/notes`} allowed={notes.mayComment} signInPath={signInPath(c)} />
        </section>
      </>,
    );
  });

  /** GitLab's /:project/-/merge_requests/:iid/commits: the newest version's commits, newest first. */
  web.get("/:project{.+}/-/merge_requests/:iid{[0-9]+}/commits", { summary: "Web: a merge request's commits" }, async (c) => {
    const project = await webProject(c);
    const row = await webMergeRequest(c, project);
    const commits = await versionCommits(c.var.db(), repoOf(project), await latestVersion(c.var.db(), row.id));
    return page(
      c,
      { title: `Commits · !${row.iid} · ${project.nameWithNamespace}`, crumbs: mrCrumbs(project, { label: `!${row.iid}`, href: `${projectPath(project)}/-/merge_requests/${row.iid}` }, { label: "Commits" }) },
      <>
        <Header c={c} project={project} row={row} current="commits" />
        {commits.length ? (
          <ol class="commits">
            {commits.map((commit) => (
              <li>
                <a href={`${projectPath(project)}/-/commit/${commit.oid}`}>
                  <code>{commit.oid.slice(0, 8)}</code>
                </a>{" "}
                {commit.message.split("\n")[0]}
                <div class="meta">
                  {commit.authorName} · <When at={commit.authoredAt} />
                </div>
              </li>
            ))}
          </ol>
        ) : (
          <p class="empty">No commits.</p>
        )}
      </>,
    );
  });

  /** GitLab's /:project/-/merge_requests/:iid/diffs: the newest version's diffs, cut at the diff limits. */
  web.get("/:project{.+}/-/merge_requests/:iid{[0-9]+}/diffs", { summary: "Web: a merge request's changes" }, async (c) => {
    const project = await webProject(c);
    const row = await webMergeRequest(c, project);
    const diffs = limitDiffs(await versionDiffs(c.var.db(), repoOf(project), await latestVersion(c.var.db(), row.id)));
    return page(
      c,
      { title: `Changes · !${row.iid} · ${project.nameWithNamespace}`, crumbs: mrCrumbs(project, { label: `!${row.iid}`, href: `${projectPath(project)}/-/merge_requests/${row.iid}` }, { label: "Changes" }) },
      <>
        <Header c={c} project={project} row={row} current="diffs" />
        {diffs.diffs.length ? diffs.diffs.map((d) => <DiffFile diff={d} />) : <p class="empty">No changes.</p>}
        {diffs.overflow ? <p>Some changes are not shown: the diff is too large.</p> : null}
      </>,
    );
  });

  /** POST /:project/-/merge_requests/:iid/notes: a comment (Notes::CreateService). */
  web.post("/:project{.+}/-/merge_requests/:iid{[0-9]+}/notes", { summary: "Web: comment on a merge request", params: CommentFormParams }, requireCsrf, (c) =>
    postComment(c, "MergeRequest", (project) => `${projectPath(project)}/-/merge_requests/${c.req.param("iid")}`),
  );

  /**
   * POST /:project/-/merge_requests/:iid/merge: the merge service, as `PUT …/merge` runs it, with the
   * head the page showed as `sha` (a push meanwhile is refused, as GitLab's page does).
   * Differs from GitLab: its page merges through that API from a script; here a form POSTs.
   */
  web.post("/:project{.+}/-/merge_requests/:iid{[0-9]+}/merge", { summary: "Web: merge a merge request", params: MergeFormParams }, requireCsrf, async (c) => {
    const form = await readParams(c, MergeFormParams);
    const actor = requireSignedIn(c);
    const project = await webProject(c);
    const row = await webMergeRequest(c, project);
    const outcome = await mergeMergeRequest(c.var.db(), { project, actor }, withPeople(row), {
      sha: form.sha || undefined,
      squash: form.squash,
      shouldRemoveSourceBranch: form.should_remove_source_branch,
    });
    if (outcome.kind === "unauthorized") throw forbidden();
    if (outcome.kind === "merged") await hookEvents(c.env, baseUrl(c), afterMergeHooks(row, project.id, actor.user.id, outcome.closedIssues));
    const refusal = MERGE_REFUSALS[outcome.kind];
    if (refusal) return page(c, { title: "Not merged", crumbs: mrCrumbs(project, { label: `!${row.iid}`, href: `${projectPath(project)}/-/merge_requests/${row.iid}` }) }, <MergeRefused project={project} iid={row.iid} text={refusal} />, 422);
    return seeOther(c, `${projectPath(project)}/-/merge_requests/${row.iid}`);
  });

  /** POST /:project/-/merge_requests/:iid/close and /reopen: MergeRequests::UpdateService with `state_event`. */
  for (const event of ["close", "reopen"] as const) {
    web.post(`/:project{.+}/-/merge_requests/:iid{[0-9]+}/${event}`, { summary: `Web: ${event} a merge request`, params: StateFormParams }, requireCsrf, async (c) => {
      await readParams(c, StateFormParams);
      const actor = requireSignedIn(c);
      const project = await webProject(c);
      const row = await webMergeRequest(c, project);
      const mr = withPeople(row);
      if (!canUpdateMergeRequest(actor, project, mr)) throw forbidden();
      await updateMergeRequest(c.var.db(), { project, actor, baseUrl: baseUrl(c) }, mr, { stateEvent: event });
      const updated = await mergeRequestById(c.var.db(), actor, row.id);
      await hookEvent(c.env, baseUrl(c), {
        kind: "merge_request",
        projectId: project.id,
        id: row.id,
        action: updateAction(row.state, updated?.state ?? row.state),
        userId: actor.user.id,
        before: hookAttrsBefore(mr),
      });
      return seeOther(c, `${projectPath(project)}/-/merge_requests/${row.iid}`);
    });
  }
}
