import * as z from "zod";
import { canCollaborate } from "../shared/protected_branches/collaboration";
import type { ProjectWithAccess } from "../kernel/abilities";
import { allowed, authorize } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, forbidden, notFound } from "../kernel/errors";
import { commitDiffs, commitFiles, countCommits, findCommit, isOid, listCommits, pickCommit, readCommitObject, refsContaining, repoOf, resolveRevisions, tipsReaching, type PickKind } from "../shared/git";
import { findProject, authorizedProject } from "../kernel/lookup";
import { requireUser } from "../kernel/auth";
import { pageOf, pageParams, paginate, paginateWithoutCount } from "../kernel/pagination";
import { diff, Diff } from "../entities/repository";
import { rawParams, readParams, validateParams } from "../kernel/params";
import { baseUrl, present, type PresentContext } from "../kernel/present";
import { router } from "../kernel/router";
import { pipelinesForPush } from "../shared/ci/coordinator";
import { hookEvent } from "../shared/webhooks";
import { callerOf, pushGuard } from "../shared/protected_branches/access";
import { commitFailureMessage, pickFailureMessage } from "../shared/git/operations/messages";
import { commitSignature } from "./signature";
import { basicRef, commit, commitDetail, commitSignatureEntity, commitNote, commitSequence, type CommitNoteRow, commitWithStats, dryRunSuccess, pickFailure, type CommitContext, Commit, CommitWithStats, CommitDetail, BasicRef, CommitSignature, CommitNote, CommitSequence as CommitSequenceEntity } from "../entities/commits";
import { mergeRequestBasic, type MergeRequestContext, type MergeRequestRow, MergeRequestBasic } from "../entities/merge_requests";
import { diffLines, lineCode, lineNumber } from "./diff_lines";
import { insertCommitNote } from "../shared/issuables/note_writes";
import { newDiscussionId } from "../shared/issuables/system_notes";
import { CherryPick, CommitRefs, CommitSequence, PostComment, PostLineComment, CreateCommit, createCommitRules, GetCommit, ListCommits, Revert } from "./params";
import * as q from "./queries";
import type { GitCommitRow } from "./queries";

/**
 * The commits API (lib/api/commits.rb, GitLab 15.4) over the git core (functions/shared/git, docs/git.md).
 * Every endpoint first needs `download_code` on the project (`before { authorize! :download_code }`),
 * which Grape runs before it validates parameters.
 * `/statuses` lives in functions/commit_statuses.
 */
export const commitsRoutes = router();

/**
 * `authorize_push_to_branch!`: Gitlab::UserAccess#can_push_to_branch?, `push_code` here (or a merge
 * request from the branch allowing the caller's collaboration, `can_collaborate?`) and the branch's
 * protection in the git core's state read (`mayPush`, no statement of its own).
 */
async function authorizePush(c: Ctx, project: ProjectWithAccess, branch: string) {
  if (!(await canCollaborate(c.var.db(), c.var.actor, project, branch))) throw forbidden("You are not allowed to push into this branch");
  return pushGuard(callerOf(c.var.actor, project), project, branch);
}

/** Gitlab::Git::User.from_gitlab: the user's name and commit email (else the primary email). */
function gitUser(c: Ctx) {
  const user = c.var.actor!.user;
  return { name: user.name, email: user.commitEmail || user.email };
}

/** What the commit entities need besides the presentation context. */
function commitContext(project: ProjectWithAccess, extra: Omit<Partial<CommitContext>, keyof PresentContext> = {}) {
  return { projectId: project.id, projectPath: project.fullPath, ...extra };
}

/** GET /projects/:id/repository/commits (lib/api/commits.rb) */
commitsRoutes.get("/projects/:id/repository/commits", { params: ListCommits, response: [z.union([CommitWithStats, Commit])] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, ListCommits);
  const page = pageOf(params);
  // `params[:ref_name].presence || default branch`, unless `all` (a blank name is no name).
  const refName = params.all || !params.ref_name?.trim() ? null : params.ref_name;
  // Gitaly refuses a revision starting with `-` (InvalidArgument → ArgumentError → this 400).
  if (refName?.startsWith("-")) throw apiError("ref_name is invalid", 400);
  // Differs from GitLab 15.4: leading slashes are dropped (as later GitLab does) instead of asking git
  // for a path outside the repository.
  const path = params.path?.replace(/^\/+/, "") || null;
  const result = await listCommits(c.var.db(), repoOf(project), {
    refName,
    all: !!params.all,
    since: params.since ?? null,
    until: params.until ?? null,
    path,
    firstParent: !!params.first_parent,
    order: params.order ?? "default",
    offset: page.offset,
    limit: page.limit,
  });
  if (result.kind === "invalid") throw apiError("ref_name is invalid", 400);
  // An empty repository or a revision that does not exist lists nothing (Gitaly finds no commits).
  const rows = result.kind === "ok" ? result.commits : [];
  paginateWithoutCount(c, page, rows.length);
  return present(c, rows, params.with_stats ? commitWithStats : commit, commitContext(project, { withTrailers: !!params.trailers }));
});

/** POST /projects/:id/repository/commits (lib/api/commits.rb, Files::MultiService) */
commitsRoutes.post("/projects/:id/repository/commits", { params: CreateCommit, response: CommitDetail }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, CreateCommit, createCommitRules);
  if (params.start_project !== undefined) {
    const startProject = await findProject(c, params.start_project);
    // GitLab 15.4 accepts only the project this one was forked from (`forked_from?`), and a project is
    // never forked from itself. Forks do not exist yet, so every readable start project is refused.
    throw forbidden(`Project is not included in the fork network for ${startProject.nameWithNamespace}`);
  }
  const mayPush = await authorizePush(c, project, params.branch);
  const result = await commitFiles(c.var.db(), repoOf(project), {
    mayPush,
    branch: params.branch,
    startBranch: params.start_branch ?? null,
    startSha: params.start_sha ?? null,
    actions: params.actions,
    message: params.commit_message,
    authorName: params.author_name ?? null,
    authorEmail: params.author_email ?? null,
    committer: gitUser(c),
    force: params.force ?? false,
    userId: c.var.actor!.user.id,
    // GitLab's pre-receive hook holds API commits to the push rule too (400 with its message).
    pushRules: true,
  });
  if (!result.ok) {
    if (result.failure.kind === "forbidden") throw forbidden("You are not allowed to push into this branch");
    throw apiError(commitFailureMessage(result.failure), 400);
  }
  // The ref update wrote a push event: its pipeline (if the branch has a .gitlab-ci.yml) starts now.
  c.executionCtx.waitUntil(pipelinesForPush(c.env, project.id, { baseUrl: baseUrl(c) }).catch((e) => console.error("pipelines for push:", e)));
  return present(c, result.commit, commitDetail, commitContext(project, { withStats: params.stats ?? true }), 201);
});

/** GET /projects/:id/repository/commits/:sha (lib/api/commits.rb): a sha, branch or tag name */
commitsRoutes.get("/projects/:id/repository/commits/:sha", { params: GetCommit, response: CommitDetail }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, GetCommit);
  const row = await findCommit(c.var.db(), repoOf(project), c.req.param("sha")!);
  if (!row) throw notFound("Commit");
  const lastPipeline = await q.lastPipeline(c.var.db(), project.id, row.oid);
  const readsPipelines = allowed(c.var.actor, "read_pipeline", project);
  return present(c, row, commitDetail, commitContext(project, { withStats: params.stats ?? true, lastPipeline, readsPipelines }));
});

/**
 * GET /projects/:id/repository/commits/:sha/diff (lib/api/commits.rb): the commit's diffs against its
 * first parent, `Kaminari.paginate_array` (offset headers with totals).
 */
commitsRoutes.get("/projects/:id/repository/commits/:sha/diff", { params: pageParams, response: [Diff] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, pageParams);
  const repo = repoOf(project);
  const row = await findCommit(c.var.db(), repo, c.req.param("sha")!);
  if (!row) throw notFound("Commit");
  const diffs = await commitDiffs(c.var.db(), repo, row);
  const page = pageOf(params);
  paginate(c, page, diffs.length);
  return present(c, diffs.slice(page.offset, page.offset + page.limit), diff);
});

/** GET /projects/:id/repository/commits/:sha/refs (lib/api/commits.rb): branches, then tags */
commitsRoutes.get("/projects/:id/repository/commits/:sha/refs", { params: CommitRefs, response: [BasicRef] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, CommitRefs);
  const repo = repoOf(project);
  // Only the id is needed (not the commit's row): one statement fewer than findCommit.
  const sha = c.req.param("sha")!;
  const oid = (await resolveRevisions(c.var.db(), repo, [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  const refs = await refsContaining(c.var.db(), repo, oid, params.type ?? "all");
  // `Kaminari.paginate_array(refs)`: the whole list is known, so the usual headers with totals.
  const page = pageOf(params);
  paginate(c, page, refs.length);
  return present(c, refs.slice(page.offset, page.offset + page.limit), basicRef);
});

/** The id a revision resolves to, or `404 Commit Not Found` (`user_project.commit(params[:sha])`). */
async function commitOid(c: Ctx, project: ProjectWithAccess): Promise<string> {
  const sha = c.req.param("sha")!;
  const oid = (await resolveRevisions(c.var.db(), repoOf(project), [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  return oid;
}

/**
 * GET /projects/:id/repository/commits/:sha/signature (lib/api/commits.rb): `404 Commit Not Found`,
 * then `404 Signature Not Found` for an unsigned commit; else Entities::CommitSignature.
 */
commitsRoutes.get("/projects/:id/repository/commits/:sha/signature", { response: CommitSignature }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const oid = await commitOid(c, project);
  const object = await readCommitObject(c.var.db(), repoOf(project).poolId, oid);
  const signature = object ? commitSignature(object.extraHeaders) : null;
  // GitLab 15.4's Commit#signature reads PGP and X.509 signatures only (SSH came in 15.7): nil, a 404.
  if (!signature || signature.type === "SSH") throw notFound("Signature");
  const key = signature.keyid ? await q.gpgKeyByKeyid(c.var.db(), signature.keyid) : null;
  return present(c, { type: signature.type, keyid: signature.keyid, key }, commitSignatureEntity);
});

/**
 * GET /projects/:id/repository/commits/:sha/merge_requests (lib/api/commits.rb): the project's merge
 * requests related to the commit (MergeRequestsFinder `commit_sha`, `by_related_commit_sha`): its
 * newest diff version contains the commit (`git log head ^base`), or the commit is its merge or
 * squash commit. Newest id first, offset pagination with totals.
 */
commitsRoutes.get("/projects/:id/repository/commits/:sha/merge_requests", { params: pageParams, response: [MergeRequestBasic] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, pageParams);
  authorize(c, "read_merge_request", project);
  const oid = await commitOid(c, project);
  const db = c.var.db();
  const candidates = await q.mergeRequestCommits(db, project.id);
  const tips = candidates.flatMap((mr) => [mr.head, mr.base]).filter((t): t is string => !!t);
  const reaching = await tipsReaching(db, repoOf(project), oid, tips);
  const related = candidates.filter(
    (mr) => mr.mergeCommitSha === oid || mr.squashCommitSha === oid || (!!mr.head && reaching.has(mr.head) && !(mr.base && reaching.has(mr.base))),
  );
  const page = pageOf(params);
  paginate(c, page, related.length);
  const rows = await q.loadMergeRequests(db, related.slice(page.offset, page.offset + page.limit).map((mr) => mr.id), c.var.actor);
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, rows, mergeRequestBasic, {
    fromProject: { id: project.id, namespaceId: project.namespaceId },
  });
});

/**
 * GET /projects/:id/repository/commits/:sha/sequence (lib/api/commits.rb): `git rev-list --count`.
 * Differs from GitLab 15.4: this endpoint came with GitLab 16.9; it is built as 16.9 answers it.
 */
commitsRoutes.get("/projects/:id/repository/commits/:sha/sequence", { params: CommitSequence, response: CommitSequenceEntity }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, CommitSequence);
  const oid = await commitOid(c, project);
  const count = await countCommits(c.var.db(), repoOf(project), oid, params.first_parent ?? false);
  return present(c, { count }, commitSequence);
});

/**
 * The lines of the commit's diff by line code (LegacyDiffNote#diff_line): each file's lines under
 * `sha1(new path)`, as Gitlab::Diff::File#line_for_line_code finds them.
 */
async function diffLinesByCode(c: Ctx, project: ProjectWithAccess, row: GitCommitRow) {
  const out = new Map<string, NonNullable<CommitNoteRow["diffLine"]>>();
  for (const file of await commitDiffs(c.var.db(), repoOf(project), row)) {
    for (const line of diffLines(file.diff)) out.set(lineCode(file.newPath, line), { path: file.newPath, line: lineNumber(line), type: line.type });
  }
  return out;
}

/** GET /projects/:id/repository/commits/:sha/comments (lib/api/commits.rb): `commit.notes.fresh`, paginated */
commitsRoutes.get("/projects/:id/repository/commits/:sha/comments", { params: pageParams, response: [CommitNote] }, async (c) => {
  const project = await authorizedProject(c, "download_code");
  const params = await readParams(c, pageParams);
  const row = await findCommit(c.var.db(), repoOf(project), c.req.param("sha")!);
  if (!row) throw notFound("Commit");
  const page = pageOf(params);
  const { rows, total } = await q.listCommitNotes(c.var.db(), project.id, row.oid, page);
  // The diff is read only when a note on a diff line needs its path and line.
  const lines = rows.some((n) => n.lineCode) ? await diffLinesByCode(c, project, row) : new Map();
  paginate(c, page, total);
  return present(c, rows.map((n) => ({ ...n, diffLine: (n.lineCode && lines.get(n.lineCode)) || null })), commitNote);
});

/**
 * POST /projects/:id/repository/commits/:sha/comments (lib/api/commits.rb): a note on the commit; with
 * `path`, `line` and `line_type` naming an added ("new") or removed ("old") line of the commit's diff
 * (matched on its new position, as GitLab does), a LegacyDiffNote on that line, else a plain note.
 * Differs from GitLab: no note webhook and no mention to-dos for commit notes yet.
 */
commitsRoutes.post("/projects/:id/repository/commits/:sha/comments", { params: [PostLineComment, PostComment], response: CommitNote }, async (c) => {
  // A note needs an author: anonymous callers get the 401 of `authenticate!`.
  const user = requireUser(c).user;
  const project = await authorizedProject(c, "download_code");
  const raw = await rawParams(c);
  const given = typeof raw.path === "string" ? raw.path !== "" : raw.path !== undefined && raw.path !== null;
  const params: { note: string; path?: string; line?: number; line_type?: "new" | "old" } = validateParams(raw, given ? PostLineComment : PostComment);
  const repo = repoOf(project);
  const row = await findCommit(c.var.db(), repo, c.req.param("sha")!);
  if (!row) throw notFound("Commit");
  // Note validation (`validates :note, presence: true`), worded as 15.4's render_api_error! does.
  if (params.note.trim() === "") throw apiError(`Failed to save note {:note=>["can't be blank"]}`, 400);
  let code: string | null = null;
  let diffLine: CommitNoteRow["diffLine"] = null;
  if (given && params.line !== undefined) {
    const type = params.line_type ?? "new";
    for (const file of await commitDiffs(c.var.db(), repo, row)) {
      if (file.newPath !== params.path) continue;
      const line = diffLines(file.diff).find((l) => l.newPos === params.line && l.type === type);
      if (!line) continue;
      code = lineCode(file.newPath, line);
      diffLine = { path: file.newPath, line: lineNumber(line), type: line.type };
      break;
    }
  }
  const note = await insertCommitNote(c.var.db(), {
    projectId: project.id,
    commitId: row.oid,
    authorId: user.id,
    body: params.note,
    lineCode: code,
    discussionId: newDiscussionId(),
  });
  // A commit comment is a note: its Note Hook (`commit` in the payload), as GitLab's Notes::CreateService.
  await hookEvent(c.env, baseUrl(c), { kind: "note", projectId: project.id, id: note.id, userId: user.id });
  return present(c, { ...note, author: user, resolvedBy: null, diffLine }, commitNote, {}, 201);
});

/** POST /projects/:id/repository/commits/:sha/cherry_pick (lib/api/commits.rb, Commits::CherryPickService) */
commitsRoutes.post("/projects/:id/repository/commits/:sha/cherry_pick", { params: CherryPick }, (c) => pick(c, "cherry_pick"));

/** POST /projects/:id/repository/commits/:sha/revert (lib/api/commits.rb, Commits::RevertService) */
commitsRoutes.post("/projects/:id/repository/commits/:sha/revert", { params: Revert }, (c) => pick(c, "revert"));

async function pick(c: Ctx, kind: PickKind) {
  const project = await authorizedProject(c, "download_code");
  const params: { branch: string; dry_run?: boolean; message?: string } = await readParams(c, kind === "cherry_pick" ? CherryPick : Revert);
  const mayPush = await authorizePush(c, project, params.branch);
  const repo = repoOf(project);
  const sha = c.req.param("sha")!;
  // A full id goes to the core as it is: its state read finds the commit (or resolves a tag's id).
  const oid = isOid(sha) ? sha : (await resolveRevisions(c.var.db(), repo, [sha])).get(sha);
  if (!oid) throw notFound("Commit");
  const dryRun = params.dry_run ?? false;
  const result = await pickCommit(c.var.db(), repo, {
    kind,
    commit: oid,
    branch: params.branch,
    user: gitUser(c),
    userId: c.var.actor!.user.id,
    dryRun,
    message: params.message ?? null,
    mayPush,
  });
  if (result.ok) {
    if (dryRun || !result.commit) return c.json(dryRunSuccess, 200);
    return present(c, result.commit, commit, commitContext(project), 201);
  }
  const failure = result.failure;
  if (failure.kind === "branch_not_found") throw notFound("Branch");
  if (failure.kind === "commit_not_found") throw notFound("Commit");
  if (failure.kind === "forbidden") throw forbidden("You are not allowed to push into this branch");
  if (failure.kind === "ref_moved") return c.json(pickFailure(commitFailureMessage(failure), null, dryRun), 400);
  // Commits::CreateService#execute rescues Gitlab::Git::PreReceiveError into `error(ex.message)`: no error_code.
  if (failure.kind === "push_rule") return c.json(pickFailure(failure.message, null, dryRun), 400);
  return c.json(pickFailure(pickFailureMessage(kind), failure.kind, dryRun), 400);
}
