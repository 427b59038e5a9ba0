import * as z from "zod";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { ApiError, apiError } from "../kernel/errors";
import { searchOrder, type SearchOrder } from "../kernel/fuzzy_search";
import { findGroup, findProject } from "../kernel/lookup";
import { pageOf, paginate, paginateWithoutTotal, type Page } from "../kernel/pagination";
import { rawParams, validateParams, withPathParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { IssueBasic, issueBasic } from "../entities/issues";
import { MergeRequestBasic, mergeRequestBasic, type MergeRequestContext, type MergeRequestRow } from "../entities/merge_requests";
import { Milestone, milestone } from "../entities/milestones";
import { Note, note, type Noteable } from "../entities/notes";
import { BasicProjectDetails, projectBasic } from "../entities/projects";
import { blob, SearchBlob, type BlobRow } from "../entities/search";
import { Snippet, snippetEntity } from "../entities/snippets";
import { UserBasic, userBasic } from "../entities/users";
import { CommitDetail, commitDetail, type CommitContext } from "../entities/commits";
import { loadIssueRows } from "../shared/issuables/issue_preload";
import { canReadConfidentialNotes } from "../shared/issuables/noteables";
import { repoOf } from "../shared/git";
import { searchIssueIds } from "../issues/public";
import { searchMergeRequests } from "../merge_requests/public";
import { searchMilestones, type MilestoneSearchScope } from "../milestones/public";
import { searchProjectNotes, type SearchedNoteRow } from "../notes/public";
import { listProjects } from "../projects/public";
import { searchSnippets } from "../snippets/public";
import { listUsers } from "../users/public";
import { ELASTICSEARCH_SCOPES, GlobalSearch, GroupSearch, ProjectSearch, type SearchParams } from "./params";
import { resolveSearchRef, searchBlobs, searchCommits } from "./repository";
import { wikiRepository } from "./wiki";

/**
 * The search API (lib/api/search.rb, SearchService, Gitlab::SearchResults, GroupSearchResults,
 * ProjectSearchResults; EE 15.4 without Elasticsearch). Every scope reads through its domain's own read
 * rules, row by row, so nothing the caller may not read is found. Pagination as GitLab's: the scopes
 * GitLab pages `without_count` (projects, issues, merge requests, milestones, snippets, and users at the
 * global and group levels) have no `X-Total`; a project's notes, users, blobs, commits and wiki blobs do.
 */
export const searchRoutes = router();

/** Gitlab::SearchResults::COUNT_LIMIT: blobs and commits are found up to this many past the page's offset. */
const COUNT_LIMIT = 100;

type Level = { kind: "global" } | { kind: "group"; groupId: number } | { kind: "project"; project: ProjectWithAccess };

/**
 * The parameters, with Grape's messages: a missing `scope` also fails its values validator (Grape runs
 * it on a required parameter left out), `scope is missing, scope does not have a valid value`.
 */
async function searchParams<S extends z.ZodType>(c: Ctx, schema: S): Promise<z.output<S>> {
  const raw = withPathParams(c, await rawParams(c), ["id"]);
  try {
    return validateParams(raw, schema);
  } catch (err) {
    if (err instanceof ApiError && raw.scope === undefined) {
      const body = err.body as { error?: string };
      if (body.error) throw new ApiError(400, { error: body.error.replace("scope is missing", "scope is missing, scope does not have a valid value") }, err.headers);
    }
    throw err;
  }
}

/** `verify_search_scope!` (EE): code, commit, wiki and note search outside a project need Elasticsearch. */
function verifyScope(scope: string): void {
  if (ELASTICSEARCH_SCOPES.includes(scope)) throw apiError({ error: "Scope not supported without Elasticsearch!" }, 400);
}

/** `issuable_params`: a query ending in `#<iid>` (`!<iid>` for merge requests is not special) looks up that iid. */
function iidOf(query: string): number | null {
  const m = /#(\d+)$/.exec(query);
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n <= 2147483647 ? n : -1;
}

async function run(c: Ctx, level: Level, params: SearchParams) {
  const db = c.var.db();
  const actor = c.var.actor;
  const page = pageOf(params);
  const query = params.search;
  const order: SearchOrder = searchOrder(params.order_by, params.sort);
  const owner = level.kind === "project" ? { kind: "project" as const, projectId: level.project.id } : level.kind === "group" ? { kind: "group" as const, groupId: level.groupId } : { kind: "all" as const };
  const iid = iidOf(query);
  const issuable = iid === null ? { search: query } : { iids: [iid] };
  switch (params.scope) {
    case "projects": {
      // ProjectsFinder (global) or GroupProjectsFinder with subgroups (group): `Project.search`, newest first.
      const source = level.kind === "group" ? { kind: "group" as const, groupId: level.groupId, includeSubgroups: true, withShared: false, onlyShared: false } : { kind: "all" as const };
      const { rows, total } = await listProjects(db, actor, source, { search: query }, { kind: "column", column: "id", sort: "desc" }, page);
      paginateWithoutTotal(c, page, total > page.offset + page.limit);
      return present(c, rows, projectBasic);
    }
    case "issues": {
      const filters = {
        ...issuable,
        scope: "all" as const,
        // IssuableFinder: `merged` reads as closed for issues.
        ...(params.state && params.state !== "all" ? { state: (params.state === "merged" ? "closed" : params.state) as "opened" | "closed" } : {}),
        ...(params.confidential !== undefined ? { confidential: params.confidential } : {}),
      };
      const { ids, hasNext } = await searchIssueIds(db, owner, filters, order, actor, page, new Date());
      const rows = await loadIssueRows(db, ids, actor);
      paginateWithoutTotal(c, page, hasNext);
      return present(c, rows, issueBasic, { from: null, includeSubscribed: false });
    }
    case "merge_requests": {
      const mrOwner = level.kind === "project" ? { projectId: level.project.id } : level.kind === "group" ? { groupId: level.groupId } : {};
      const filters = { ...issuable, ...(params.state ? { state: params.state } : {}) };
      // `popularity` orders issues and merge requests only (SCOPE_ONLY_SORT).
      const { rows, hasNext } = await searchMergeRequests(db, actor, mrOwner, filters, order, page);
      paginateWithoutTotal(c, page, hasNext);
      return present<MergeRequestRow, Partial<MergeRequestContext>>(c, rows, mergeRequestBasic, {});
    }
    case "milestones": {
      const scope: MilestoneSearchScope = level.kind === "project" ? { kind: "project", projectId: level.project.id } : level.kind === "group" ? { kind: "group", groupId: level.groupId } : { kind: "all" };
      const { rows, hasNext } = await searchMilestones(db, actor, scope, query, page);
      paginateWithoutTotal(c, page, hasNext);
      return present(c, rows, milestone);
    }
    case "snippet_titles": {
      const { rows, hasNext } = await searchSnippets(db, requireUser(c), query, page);
      paginateWithoutTotal(c, page, hasNext);
      return present(c, rows, snippetEntity);
    }
    case "users": {
      // UsersFinder with `search` (User.search: exact name, username or e-mail first, then by name);
      // in a group its hierarchy's members, in a project its team.
      const filter =
        level.kind === "project" ? { search: query, teamOfProject: level.project.id } : level.kind === "group" ? { search: query, usersOfGroup: level.groupId } : { search: query };
      const counted = level.kind === "project";
      const window: Page = counted ? page : { ...page, limit: page.limit + 1 };
      const { rows, total } = await listUsers(db, filter, { kind: "default" }, window, { withCustomAttributes: false });
      if (counted) paginate(c, page, total);
      else paginateWithoutTotal(c, page, rows.length > page.limit);
      return present(c, rows.slice(0, page.limit), userBasic);
    }
  }
  if (level.kind !== "project") throw new Error(`unreachable scope ${params.scope}`);
  const project = level.project;
  const ref = (params as { ref?: string }).ref;
  switch (params.scope) {
    case "notes": {
      const rules = {
        issues: allowed(actor, "read_issue", project),
        mergeRequests: allowed(actor, "read_merge_request", project),
        commits: allowed(actor, "read_code", project),
        snippets: allowed(actor, "read_snippet", project),
        confidential: !!actor && (actor.isAdmin || project.accessLevel >= Access.REPORTER),
      };
      const { rows, total } = await searchProjectNotes(db, actor, project, rules, query, page);
      paginate(c, page, total);
      return present(c, rows, (row: SearchedNoteRow, ctx) =>
        // The entity's `noteable_iid` is the row's noteable's (issues and merge requests).
        note(row, { ...ctx, noteable: { iid: row.noteableIid } as Noteable }),
      );
    }
    case "blobs":
    case "commits": {
      if (!allowed(actor, "read_code", project) || project.emptyRepo) return emptyCounted(c, page);
      const repo = repoOf(project);
      const refName = ref ?? project.defaultBranch ?? "HEAD";
      const commit = await resolveSearchRef(db, repo, refName);
      if (!commit) return emptyCounted(c, page);
      const limit = COUNT_LIMIT + page.offset;
      if (params.scope === "commits") {
        const found = await searchCommits(db, repo, commit, query, limit);
        paginate(c, page, found.length);
        const ctx: Partial<CommitContext> = { projectId: project.id, projectPath: project.fullPath, readsPipelines: false, lastPipeline: null };
        return present(c, found.slice(page.offset, page.offset + page.limit), commitDetail, ctx as CommitContext);
      }
      const found = await searchBlobs(db, repo, commit, refName, query, limit);
      return presentBlobs(c, page, found.map((b) => ({ ...b, projectId: project.id })));
    }
    case "wiki_blobs": {
      const wiki = allowed(actor, "read_wiki", project) ? await wikiRepository(db, project) : null;
      if (!wiki) return emptyCounted(c, page);
      const commit = await resolveSearchRef(db, wiki.repo, wiki.ref);
      if (!commit) return emptyCounted(c, page);
      const found = await searchBlobs(db, wiki.repo, commit, wiki.ref, query, COUNT_LIMIT + page.offset);
      return presentBlobs(c, page, found.map((b) => ({ ...b, projectId: project.id })));
    }
  }
  throw new Error(`unreachable scope ${params.scope}`);
}

/** `Kaminari.paginate_array` of what was found (up to COUNT_LIMIT past the offset): with totals. */
function presentBlobs(c: Ctx, page: Page, found: BlobRow[]) {
  paginate(c, page, found.length);
  return present(c, found.slice(page.offset, page.offset + page.limit), blob);
}

function emptyCounted(c: Ctx, page: Page) {
  paginate(c, page, 0);
  return c.json([]);
}

/** What a search answers: a list of the scope's entity (API::Search `SCOPE_ENTITY`). */
const SearchResult = z.union([BasicProjectDetails, IssueBasic, MergeRequestBasic, Milestone, Snippet, UserBasic, Note, CommitDetail, SearchBlob]);

/** GET /search */
searchRoutes.get("/search", { params: GlobalSearch, response: [SearchResult] }, async (c) => {
  requireUser(c);
  const params = await searchParams(c, GlobalSearch);
  verifyScope(params.scope);
  return run(c, { kind: "global" }, params);
});

/** GET /groups/:id/search (also `/groups/:id/-/search`) */
const groupSearch = async (c: Ctx) => {
  requireUser(c);
  const params = await searchParams(c, GroupSearch);
  const group = await findGroup(c, c.req.param("id")!);
  verifyScope(params.scope);
  return run(c, { kind: "group", groupId: group.id }, params);
};
searchRoutes.get("/groups/:id/search", { params: GroupSearch, response: [SearchResult] }, groupSearch);
searchRoutes.get("/groups/:id/-/search", { params: GroupSearch, response: [SearchResult] }, groupSearch);

/** GET /projects/:id/search (also `/projects/:id/-/search`) */
const projectSearch = async (c: Ctx) => {
  requireUser(c);
  const params = await searchParams(c, ProjectSearch);
  const project = await findProject(c, c.req.param("id")!);
  return run(c, { kind: "project", project }, params);
};
searchRoutes.get("/projects/:id/search", { params: ProjectSearch, response: [SearchResult] }, projectSearch);
searchRoutes.get("/projects/:id/-/search", { params: ProjectSearch, response: [SearchResult] }, projectSearch);
