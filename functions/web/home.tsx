/** @jsxImportSource hono/jsx */
import { GITLAB_VERSION } from "../entities/version";
import type { Ctx } from "../kernel/env";
import { page } from "./layout";

/** GET /: what Edgeforge is, its version and where its API reference is. */
export function homePage(c: Ctx) {
  const actor = c.var.actor;
  return page(
    c,
    { title: actor ? "Dashboard" : "Explore" },
    <>
      <h1>{actor ? `Welcome, ${actor.user.name}` : "Edgeforge"}</h1>
      <p>
        Edgeforge is a code forge compatible with GitLab's REST API v4 (version <span class="badge">{GITLAB_VERSION}</span>), running on Cloudflare
        Workers with Postgres: repositories over git, issues, merge requests and CI.
      </p>
      <p>
        <a href="/api/v4/docs">API reference</a> · <a href="https://docs.gitlab.com/15.4/ee/api/">GitLab's API documentation</a>
      </p>
    </>,
  );
}
