/** @jsxImportSource hono/jsx */
import { GITLAB_VERSION } from "../entities/version";
import type { Ctx } from "../kernel/env";
import { pageOf } from "../kernel/pagination";
import { listProjects } from "../projects/public";
import { page } from "./layout";
import { Pager, ProjectList } from "./lists";

const PER_PAGE = 20;

/** What Edgeforge is, its version and where the API reference and documentation are. */
function About() {
  return (
    <section class="box" aria-labelledby="about">
      <h2 id="about">About Edgeforge</h2>
      <p>
        Edgeforge is a code forge that answers GitLab's REST API v4 (as GitLab <span class="badge">{GITLAB_VERSION}</span> does), running as a Cloudflare
        Worker over Postgres: git repositories, issues, merge requests, CI pipelines and packages.
      </p>
      <p>
        <a href="/api/v4/docs">API reference</a> (the OpenAPI document at <a href="/api/v4/openapi.json">/api/v4/openapi.json</a>) ·{" "}
        <a href="https://docs.gitlab.com/15.4/ee/api/">GitLab's REST API documentation</a>, which clients of Edgeforge follow.
      </p>
    </section>
  );
}

/**
 * GET / (anonymous) and GET /explore/projects: the projects the visitor may see, most recently active
 * first, as `GET /projects` lists them. GET / signed in: the dashboard, the user's projects
 * (`membership=true`).
 */
export async function projectsPage(c: Ctx, opts: { dashboard: boolean; path: string; page: number }) {
  const dashboard = opts.dashboard && !!c.var.actor;
  const pageWindow = pageOf({ page: opts.page, per_page: PER_PAGE });
  const { rows, total } = await listProjects(
    c.var.db(),
    c.var.actor,
    { kind: "all" },
    dashboard ? { membership: true } : {},
    { kind: "column", column: "last_activity_at", sort: "desc" },
    pageWindow,
  );
  const title = dashboard ? "Your projects" : "Explore projects";
  return page(
    c,
    { title },
    <>
      <h1>{dashboard ? `Welcome, ${c.var.actor!.user.name}` : "Explore projects"}</h1>
      {dashboard && <h2>Your projects</h2>}
      <ProjectList projects={rows} empty={dashboard ? "You are not a member of any project yet." : "There are no projects you can see yet."} />
      <Pager path={opts.path} page={opts.page} more={pageWindow.offset + rows.length < total} />
      <About />
    </>,
  );
}
