/** @jsxImportSource hono/jsx */
// The pipeline and job pages (GitLab's /-/pipelines, /-/pipelines/:id, /-/jobs/:id with /raw and
// /trace.json). Reads go through the API's queries and the same abilities (`read_pipeline` for
// pipelines, `read_build` for jobs and logs). A running job's page follows its log: a small script
// polls /-/jobs/:id/trace.json for what was appended; without JavaScript the page refreshes itself.
import { raw } from "hono/html";
import * as z from "zod";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { pageOf, pageParams } from "../kernel/pagination";
import { p, readParams, validateParams } from "../kernel/params";
import { findPipeline, listPipelines, ListPipelines } from "../pipelines/public";
import { findJob, listJobs, ListPipelineJobs, readTrace } from "../jobs/public";
import { Pager, ProjectTabs, StatusBadge, UserLink, When, authorizePage, projectCrumbs, projectPath, webProject, type WebRouter } from "./kit";
import { page, scriptNonce } from "./layout";

const IdParam = z.object({ id: p.int() });
/** The list's page. */
export const PipelineListParams = z.object({ page: pageParams.shape.page });
/** The follower's `offset`: bytes of the log it already shows. */
export const TraceParams = z.object({ offset: p.intIn({ min: 0 }).optional() });

const pipelinesCrumbs = (project: ProjectWithAccess, ...rest: { label: string; href?: string }[]) =>
  projectCrumbs(project, { label: "Pipelines", href: `${projectPath(project)}/-/pipelines` }, ...rest);

/** `HasStatus::ACTIVE_STATUSES` and `created`: a job whose log may still grow. */
const GOING = new Set(["created", "waiting_for_resource", "preparing", "pending", "running", "canceling"]);

/**
 * The log as text: ANSI colour sequences and the runner's section markers
 * (`section_start:<time>:<name>\r\e[0K`) dropped. Differs from GitLab: colours are not shown.
 */
export function plainLog(bytes: Uint8Array): string {
  return new TextDecoder()
    .decode(bytes)
    .replace(/section_(?:start|end):\d+:[A-Za-z0-9_.-]+(?:\[[^\]]*\])?\r?/g, "")
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\r\n/g, "\n")
    .replace(/\r/g, "\n");
}

async function webPipeline(c: Ctx, project: ProjectWithAccess) {
  const { id } = validateParams({ id: c.req.param("id") }, IdParam);
  const row = await findPipeline(c.var.db(), project.id, id);
  if (!row) throw notFound("Pipeline");
  return row;
}

async function webJob(c: Ctx, project: ProjectWithAccess) {
  authorizePage(c, "read_build", project);
  const { id } = validateParams({ id: c.req.param("id") }, IdParam);
  const found = await findJob(c.var.db(), project.id, id);
  if (!found) throw notFound("Job");
  return found.row;
}

/** The follower: appends what the log gained since `offset`, every two seconds, until the job ends. */
const FOLLOW = `(function(){var pre=document.getElementById("job-log"),st=document.getElementById("job-status");
var url=pre.getAttribute("data-trace-url"),off=Number(pre.getAttribute("data-offset"));
function tick(){fetch(url+"?offset="+off,{credentials:"same-origin"}).then(function(r){return r.json()}).then(function(j){
if(j.append){pre.appendChild(document.createTextNode(j.content))}else{pre.textContent=j.content}
off=j.offset;st.textContent=j.status;st.className="badge ci-"+j.status;
if(!j.complete){setTimeout(tick,2000)}}).catch(function(){setTimeout(tick,5000)})}
setTimeout(tick,2000)})();`;

export function pipelinePages(web: WebRouter) {
  /** GitLab's /:project/-/pipelines: Ci::PipelinesFinder, newest first, 20 a page. */
  web.get("/:project{.+}/-/pipelines", { summary: "Web: a project's pipelines", params: PipelineListParams }, async (c) => {
    const { page: pageNumber } = await readParams(c, PipelineListParams);
    const project = await webProject(c);
    authorizePage(c, "read_pipeline", project);
    const params = validateParams({ page: pageNumber, per_page: 20 }, ListPipelines);
    const { rows, total } = await listPipelines(c.var.db(), project.id, params, pageOf(params));
    const base = projectPath(project);
    return page(
      c,
      { title: `Pipelines · ${project.nameWithNamespace}`, crumbs: pipelinesCrumbs(project) },
      <>
        <ProjectTabs project={project} current="pipelines" />
        <h1>Pipelines</h1>
        {rows.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Pipeline</th>
                <th scope="col">Ref</th>
                <th scope="col">Commit</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  <td>
                    <StatusBadge status={row.status} />
                  </td>
                  <td>
                    <a href={`${base}/-/pipelines/${row.id}`}>#{row.id}</a>
                  </td>
                  <td>
                    <code>{row.ref}</code>
                  </td>
                  <td>
                    <code>{row.sha.slice(0, 8)}</code>
                  </td>
                  <td>
                    <When at={row.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="empty">No pipelines.</p>
        )}
        <Pager c={c} page={pageOf(params)} total={total} />
      </>,
    );
  });

  /** GitLab's /:project/-/pipelines/:id: the pipeline, its stages in order and their jobs. */
  web.get("/:project{.+}/-/pipelines/:id{[0-9]+}", { summary: "Web: a pipeline, its stages and jobs" }, async (c) => {
    const project = await webProject(c);
    authorizePage(c, "read_pipeline", project);
    const row = await webPipeline(c, project);
    const base = projectPath(project);
    // The jobs (retried ones left out, as the API lists them) only for who may read builds.
    const mayReadJobs = allowed(c.var.actor, "read_build", project);
    const params = validateParams({ per_page: "100" }, ListPipelineJobs);
    const db = c.var.db();
    const jobs = mayReadJobs ? (await listJobs(db, project.id, { pipelineId: row.id, type: "build" }, params, pageOf(params))).rows : [];
    const stages = new Map<string, typeof jobs>();
    for (const job of [...jobs].sort((a, b) => a.stageIdx - b.stageIdx || a.id - b.id)) stages.set(job.stage, [...(stages.get(job.stage) ?? []), job]);
    return page(
      c,
      { title: `Pipeline #${row.id} · ${project.nameWithNamespace}`, crumbs: pipelinesCrumbs(project, { label: `#${row.id}` }) },
      <>
        <ProjectTabs project={project} current="pipelines" />
        <h1>
          Pipeline #{row.id} <StatusBadge status={row.status} />
        </h1>
        <p>
          For <code>{row.ref}</code> at <a href={`${base}/-/commit/${row.sha}`}>{row.sha.slice(0, 8)}</a>, created <When at={row.createdAt} />
          {row.user ? (
            <>
              {" "}
              by <UserLink user={row.user} />
            </>
          ) : null}
          {row.duration ? ` · ${row.duration} s` : ""}
        </p>
        {row.yamlErrors ? <p class="error">{row.yamlErrors}</p> : null}
        {mayReadJobs ? (
          <div class="stages">
            {[...stages].map(([stage, list]) => (
              <section class="stage" aria-label={`Stage ${stage}`}>
                <h2>{stage}</h2>
                <ul>
                  {list.map((job) => (
                    <li>
                      <StatusBadge status={job.status} /> <a href={`${base}/-/jobs/${job.id}`}>{job.name}</a>
                      {job.allowFailure && job.status === "failed" ? " (allowed to fail)" : ""}
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        ) : null}
      </>,
    );
  });

  /** GitLab's /:project/-/jobs/:id: the job and its log, followed while the job runs. */
  web.get("/:project{.+}/-/jobs/:id{[0-9]+}", { summary: "Web: a job and its log" }, async (c) => {
    const project = await webProject(c);
    const job = await webJob(c, project);
    const log = plainLog(await readTrace(c.var.db(), job.id));
    const going = GOING.has(job.status);
    const base = projectPath(project);
    return page(
      c,
      { title: `${job.name} (#${job.id}) · Jobs · ${project.nameWithNamespace}`, crumbs: pipelinesCrumbs(project, { label: `#${job.pipelineId}`, href: `${projectPath(project)}/-/pipelines/${job.pipelineId}` }, { label: job.name }) },
      <>
        {going ? <noscript>{raw('<meta http-equiv="refresh" content="5">')}</noscript> : null}
        <ProjectTabs project={project} current="pipelines" />
        <h1>
          Job {job.name} <span class="ref">#{job.id}</span>{" "}
          <span id="job-status" class={`badge ci-${job.status}`} aria-live="polite">
            {job.status}
          </span>
        </h1>
        <p>
          Stage <code>{job.stage}</code> of <a href={`${base}/-/pipelines/${job.pipelineId}`}>pipeline #{job.pipelineId}</a> on <code>{job.pipeline.ref}</code>
          {job.startedAt ? (
            <>
              {" "}
              · started <When at={job.startedAt} />
            </>
          ) : null}
          {job.finishedAt ? (
            <>
              {" "}
              · finished <When at={job.finishedAt} />
            </>
          ) : null}
          {" · "}
          <a href={`${base}/-/jobs/${job.id}/raw`}>Raw log</a>
        </p>
        <pre id="job-log" class="log" tabindex={0} aria-label="Job log" data-trace-url={`${base}/-/jobs/${job.id}/trace.json`} data-offset={String(new TextEncoder().encode(log).length)}>
          {log}
        </pre>
        {going ? <script nonce={scriptNonce(c)}>{raw(FOLLOW)}</script> : null}
      </>,
    );
  });

  /** GitLab's /:project/-/jobs/:id/raw: the log as plain text, as `GET …/jobs/:id/trace` answers it. */
  web.get("/:project{.+}/-/jobs/:id{[0-9]+}/raw", { summary: "Web: a job's log as plain text" }, async (c) => {
    const project = await webProject(c);
    const job = await webJob(c, project);
    return new Response(await readTrace(c.var.db(), job.id), { headers: { "Content-Type": "text/plain; charset=utf-8" } });
  });

  /**
   * GitLab's /:project/-/jobs/:id/trace.json, for the follower: the status, whether the log is complete,
   * and the log's text from `offset` (bytes of the plain log already shown) on.
   * Differs from GitLab: a subset of its keys (`id`, `status`, `complete`, `append`, `offset`,
   * `size`), with the text in `content` rather than rendered `html` lines.
   */
  web.get("/:project{.+}/-/jobs/:id{[0-9]+}/trace.json", { summary: "Web: a job's status and the log appended since `offset`", params: TraceParams }, async (c) => {
    const { offset } = await readParams(c, TraceParams);
    const project = await webProject(c);
    const job = await webJob(c, project);
    const bytes = new TextEncoder().encode(plainLog(await readTrace(c.var.db(), job.id)));
    const append = offset !== undefined && offset >= 0 && offset <= bytes.length;
    const content = new TextDecoder().decode(append ? bytes.subarray(offset) : bytes);
    return c.json({ id: job.id, status: job.status, complete: !GOING.has(job.status), append, offset: bytes.length, size: bytes.length, content });
  });
}
