// Git over smart HTTP (app/controllers/repositories/git_http_controller.rb; gitprotocol-http(5)):
import { streamOf } from "../kernel/stream";
// `http(s)://host/<full_path>.git` for clone, fetch, pull and push with the git CLI. upload-pack
// speaks protocol v2 (`Git-Protocol: version=2`); receive-pack speaks v0/v1 with report-status.
import { Hono } from "hono";
import { pipelinesForPush } from "../shared/ci/coordinator";
import type { AppEnv, Ctx } from "../kernel/env";
import { baseUrl } from "../kernel/present";
import { projectLfsEnabled } from "../entities/projects";
import { loadSettings } from "../shared/settings/load";
import { callerOf } from "../shared/protected_branches/access";
import { branchAllowsCollaboration } from "../shared/protected_branches/collaboration";
import { PktError, pkt, readPktLines } from "../shared/git/pack/pktline";
import { ByteReader } from "../shared/git/pack/reader";
import { GitHttpError, gitAccess, wikiGitAccess, type GitService, type WikiOwner } from "../shared/git_http/access";
import { hookEvents, type HookEvent } from "../shared/webhooks";
import { ensureWiki, findWiki, pushedPageChanges, wikiRepo, type WikiContainer } from "../shared/wikis/store";
import { RECEIVE_CAPABILITIES, receivePack } from "../shared/git_http/receive_pack";
import { countFetch } from "../shared/git_http/queries";
import { FetchError, lsRefs, packResponse, parseFetchArgs, planFetch, receivePackAdvertisement, v2Advertisement, type Repository } from "../shared/git_http/upload_pack";

/**
 * A plain sub-app, not `router()`: the API's token and scope guards do not apply; git clients
 * authenticate with HTTP Basic, checked in access.ts.
 */
export const gitHttpRoutes = new Hono<AppEnv>();

const NO_CACHE = { "Cache-Control": "no-cache, max-age=0, must-revalidate", Expires: "Fri, 01 Jan 1980 00:00:00 GMT", Pragma: "no-cache" };

function bytesResponse(parts: Uint8Array[], contentType: string, status = 200): Response {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const body = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return new Response(body, { status, headers: { "Content-Type": contentType, ...NO_CACHE } });
}

function streamResponse(chunks: AsyncGenerator<Uint8Array>, contentType: string, c: Ctx): Response {
  return new Response(streamOf(c, chunks, "git pack"), { headers: { "Content-Type": contentType, ...NO_CACHE } });
}

/** The project path of `/<full_path>.git`. */
const repoPath = (c: Ctx) => c.req.param("repo")!.replace(/\.git$/, "");

/** `/<full_path>.wiki.git`: the wiki of the project or group at `full_path` (Gitlab::GlRepository::WIKI). */
const wikiPath = (c: Ctx) => {
  const path = repoPath(c);
  return path.endsWith(".wiki") ? path.slice(0, -".wiki".length) : null;
};

const wikiContainer = (owner: WikiOwner): WikiContainer => (owner.kind === "project" ? { projectId: owner.project.id } : { groupId: owner.group.id });

/**
 * A wiki's repository for git. Fetching a wiki never written answers as an empty repository (key 0
 * holds no refs) without creating it; a push creates it (GitLab creates the wiki repository on push).
 */
async function wikiRepository(c: Ctx, path: string, service: GitService) {
  const { owner, actor } = await wikiGitAccess(c, path, service);
  const container = wikiContainer(owner);
  const wiki = service === "git-receive-pack" ? await ensureWiki(c.var.db(), container) : await findWiki(c.var.db(), container);
  const repo: Repository = wiki ? wikiRepo(wiki) : { projectId: 0, poolId: 0, defaultBranch: null };
  return { owner, actor, wiki, repo };
}

const repository = (project: { id: number; defaultBranch: string | null; poolId: number | null }): Repository => ({
  projectId: project.id,
  poolId: project.poolId ?? project.id,
  defaultBranch: project.defaultBranch,
});

function requestBody(c: Ctx): ReadableStream<Uint8Array> | null {
  const body = c.req.raw.body;
  if (!body) return null;
  const encoding = (c.req.header("content-encoding") ?? "").toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return body.pipeThrough(new DecompressionStream("gzip"));
  return body;
}

const wantsV2 = (c: Ctx) => /(^|[:\s])version=2($|[:\s])/.test(c.req.header("git-protocol") ?? "");

async function guarded(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof GitHttpError) return error.response();
    throw error;
  }
}

/** GET /<path>.git/info/refs?service=… : the advertisement (v2 capabilities, or receive-pack's refs). */
gitHttpRoutes.get("/:repo{.+\\.git}/info/refs", (c) =>
  guarded(async () => {
    const service = c.req.query("service");
    if (service !== "git-upload-pack" && service !== "git-receive-pack") {
      // Dumb HTTP is not served (GitLab's Workhorse refuses it too).
      return c.text("Dumb HTTP is not supported", 403);
    }
    const wiki = wikiPath(c);
    if (wiki !== null) {
      const { repo } = await wikiRepository(c, wiki, service);
      if (service === "git-receive-pack") return bytesResponse(await receivePackAdvertisement(c.var.db(), repo, RECEIVE_CAPABILITIES), "application/x-git-receive-pack-advertisement");
      if (!wantsV2(c)) return c.text("git-upload-pack: protocol v2 is required (git 2.18 or later, protocol.version=2)", 403);
      return bytesResponse(v2Advertisement(), "application/x-git-upload-pack-advertisement");
    }
    const { project } = await gitAccess(c, repoPath(c), service);
    if (service === "git-upload-pack") {
      // Differs from GitLab: protocol v0/v1 fetches are not served (git 2.18+ asks for v2 by default).
      if (!wantsV2(c)) return c.text("git-upload-pack: protocol v2 is required (git 2.18 or later, protocol.version=2)", 403);
      return bytesResponse(v2Advertisement(), "application/x-git-upload-pack-advertisement");
    }
    return bytesResponse(await receivePackAdvertisement(c.var.db(), repository(project), RECEIVE_CAPABILITIES), "application/x-git-receive-pack-advertisement");
  }),
);

/** POST /<path>.git/git-upload-pack: a v2 command (`ls-refs` or `fetch`). */
gitHttpRoutes.post("/:repo{.+\\.git}/git-upload-pack", (c) =>
  guarded(async () => {
    const wiki = wikiPath(c);
    const project = wiki !== null ? null : (await gitAccess(c, repoPath(c), "git-upload-pack")).project;
    const repo = project === null ? (await wikiRepository(c, wiki!, "git-upload-pack")).repo : repository(project);
    const type = "application/x-git-upload-pack-result";
    const reader = new ByteReader(requestBody(c));
    let head: string[];
    let args: string[];
    try {
      head = (await readPktLines(reader, true)).lines;
      args = (await readPktLines(reader)).lines;
    } catch (error) {
      if (!(error instanceof PktError)) throw error;
      return bytesResponse([pkt(`ERR ${error.message}\n`)], type);
    }
    const command = head.find((line) => line.startsWith("command="))?.slice(8);
    if (command === "ls-refs") return bytesResponse(await lsRefs(c.var.db(), repo, args), type);
    if (command !== "fetch") return bytesResponse([pkt(`ERR unknown command '${command ?? ""}'\n`)], type);
    const fetchArgs = parseFetchArgs(args);
    try {
      const plan = await planFetch(c.var.db(), repo, fetchArgs);
      if (plan.kind === "acks") return bytesResponse(plan.lines, type);
      if (project) await countFetch(c.var.db(), project.id);
      return streamResponse(packResponse(c.env, repo.poolId, plan.preamble, plan.oids, !fetchArgs.noProgress), type, c);
    } catch (error) {
      if (error instanceof FetchError) return bytesResponse([pkt(`ERR ${error.message}\n`)], type);
      throw error;
    }
  }),
);

/**
 * `receive_max_input_size` (MB) in bytes, as GitLab hands it to git as `receive.maxInputSize`
 * (`Gitlab::Workhorse.git_http_ok`: only when positive); null: no limit.
 */
async function maxInputSize(c: Ctx): Promise<number | null> {
  const mb = Number((await loadSettings(c.var.db())).receive_max_input_size);
  return Number.isInteger(mb) && mb > 0 ? mb * 1024 * 1024 : null;
}

/**
 * A push to a wiki (`<path>.wiki.git`): no protected branches, LFS locks, pipelines or push hooks; the
 * pages it changes on the default branch become Wiki Page Hook events (project and group wikis).
 */
async function wikiReceivePack(c: Ctx, path: string): Promise<Response> {
  const { owner, actor, wiki, repo } = await wikiRepository(c, path, "git-receive-pack");
  const result = await receivePack(
    c.var.db(),
    { ...repo, emptyRepo: false, fullPath: `${path}.wiki`, membersUrl: "", lfsEnabled: false, maxInputSize: await maxInputSize(c), wiki: true },
    actor!.user.id,
    // Wikis have no protected branches: the caller is not asked about (receivePack skips the branch checks).
    callerOf(actor, { accessLevel: 0 }),
    requestBody(c),
  );
  if (result.changes.length && wiki) {
    const events: HookEvent[] = [];
    for (const change of result.changes) {
      for (const page of await pushedPageChanges(c.var.db(), wiki, change)) {
        const written = { wikiId: wiki.id, userId: actor!.user.id, ...page };
        events.push(owner.kind === "project" ? { kind: "wiki_page", projectId: owner.project.id, ...written } : { kind: "group_wiki_page", groupId: owner.group.id, ...written });
      }
    }
    await hookEvents(c.env, baseUrl(c), events);
  }
  return bytesResponse(result.body, "application/x-git-receive-pack-result");
}

/** POST /<path>.git/git-receive-pack: commands and a pack; answers report-status. */
gitHttpRoutes.post("/:repo{.+\\.git}/git-receive-pack", (c) =>
  guarded(async () => {
    const wiki = wikiPath(c);
    if (wiki !== null) return wikiReceivePack(c, wiki);
    const { project, actor, collaborator } = await gitAccess(c, repoPath(c), "git-receive-pack");
    // Without push_code, each branch needs a merge request allowing the caller's collaboration.
    const mayPushBranch = collaborator ? (branch: string) => branchAllowsCollaboration(c.var.db(), actor, project, branch) : null;
    const repo = {
      ...repository(project),
      emptyRepo: project.emptyRepo,
      fullPath: project.fullPath,
      membersUrl: `${baseUrl(c)}/${project.fullPath}/-/project_members`,
      lfsEnabled: projectLfsEnabled(project),
      maxInputSize: await maxInputSize(c),
    };
    const result = await receivePack(c.var.db(), repo, actor!.user.id, callerOf(actor, project), requestBody(c), mayPushBranch);
    if (result.moved) {
      // The push events are written; the pipelines of the push come after the response (`-o ci.skip` skips them).
      const ciSkip = result.options.includes("ci.skip");
      c.executionCtx.waitUntil(pipelinesForPush(c.env, project.id, { ciSkip, baseUrl: baseUrl(c) }).catch((e) => console.error("pipelines for push:", e)));
    }
    return bytesResponse(result.body, "application/x-git-receive-pack-result");
  }),
);
