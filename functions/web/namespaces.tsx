/** @jsxImportSource hono/jsx */
import type { GroupWithAccess } from "../kernel/abilities";
import { canReadUserProfile } from "../kernel/abilities";
import { visibilityName } from "../kernel/access";
import type { Ctx } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { pageOf } from "../kernel/pagination";
import { listGroups } from "../groups/public";
import { listProjects } from "../projects/public";
import type { User } from "../../db/schema";
import { page } from "./layout";
import { Pager, ProjectList } from "./lists";

const PER_PAGE = 20;

/** Breadcrumbs of a group: each ancestor, then the group. */
function groupCrumbs(group: GroupWithAccess) {
  const parts = group.fullPath.split("/");
  return parts.map((part, i) => ({ label: part, href: i === parts.length - 1 ? undefined : `/${parts.slice(0, i + 1).join("/")}` }));
}

/**
 * GET /:group: its subgroups (as GET /groups/:id/subgroups) and projects (as GET /groups/:id/projects),
 * each only what the visitor may see; 20 of each a page.
 */
export async function groupPage(c: Ctx, group: GroupWithAccess, pageNumber: number) {
  const db = c.var.db();
  const window = pageOf({ page: pageNumber, per_page: PER_PAGE });
  const [subgroups, projectList] = [
    await listGroups(db, c.var.actor, { parentId: group.id }, {}, window),
    await listProjects(
      db,
      c.var.actor,
      { kind: "group", groupId: group.id, includeSubgroups: false, withShared: false, onlyShared: false },
      {},
      { kind: "column", column: "last_activity_at", sort: "desc" },
      window,
    ),
  ];
  const more = window.offset + subgroups.rows.length < subgroups.total || window.offset + projectList.rows.length < projectList.total;
  return page(
    c,
    { title: group.fullName, crumbs: groupCrumbs(group) },
    <>
      <h1>{group.name}</h1>
      <p class="muted">
        <span class="badge">{visibilityName(group.visibilityLevel)}</span> · Group ID: {group.id}
      </p>
      {group.description && <p>{group.description}</p>}
      <h2>Subgroups</h2>
      {subgroups.rows.length ? (
        <ul>
          {subgroups.rows.map((g) => (
            <li>
              <a href={`/${g.fullPath}`}>{g.name}</a>
              {g.description && <span class="muted"> · {g.description}</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No subgroups.</p>
      )}
      <h2>Projects</h2>
      <ProjectList projects={projectList.rows} empty="No projects." />
      <Pager path={`/${group.fullPath}`} page={pageNumber} more={more} />
    </>,
  );
}

/**
 * GET /:username: the profile as GET /users/:id shows it (a private profile shows the name only) and
 * the personal projects the visitor may see (as GET /users/:id/projects).
 */
export async function profilePage(c: Ctx, user: User, pageNumber: number) {
  if (user.state === "blocked" || user.state === "banned") {
    // UsersController#show: a blocked user's profile is not shown to others (GitLab: 404).
    if (!c.var.actor?.isAdmin) throw notFound("User");
  }
  const full = canReadUserProfile(c.var.actor, user);
  const window = pageOf({ page: pageNumber, per_page: PER_PAGE });
  const { rows, total } = full
    ? await listProjects(c.var.db(), c.var.actor, { kind: "all", personalOf: user.id }, {}, { kind: "column", column: "last_activity_at", sort: "desc" }, window)
    : { rows: [], total: 0 };
  return page(
    c,
    { title: `${user.name} (@${user.username})` },
    <>
      <h1>{user.name}</h1>
      <p class="muted">@{user.username}</p>
      {!full ? (
        <p>This user has a private profile.</p>
      ) : (
        <>
          <dl>
            {user.bio && (
              <>
                <dt>Bio</dt>
                <dd>{user.bio}</dd>
              </>
            )}
            {user.location && (
              <>
                <dt>Location</dt>
                <dd>{user.location}</dd>
              </>
            )}
            {user.organization && (
              <>
                <dt>Organization</dt>
                <dd>{user.organization}</dd>
              </>
            )}
            {user.publicEmail && (
              <>
                <dt>Email</dt>
                <dd>{user.publicEmail}</dd>
              </>
            )}
            <dt>Member since</dt>
            <dd>{new Date(user.createdAt).toISOString().slice(0, 10)}</dd>
          </dl>
          <h2>Personal projects</h2>
          <ProjectList projects={rows} empty="No personal projects." />
          <Pager path={`/${user.username}`} page={pageNumber} more={window.offset + rows.length < total} />
        </>
      )}
    </>,
  );
}
