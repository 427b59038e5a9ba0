import { and, eq, inArray, or } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { members, namespaces, projectGroupLinks, projects } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";
import { groupRow, linkProject, queryCount } from "./support";

describe("DELETE /groups/:id", () => {
  requiresAuthentication((w) => w.anonymous.delete("/groups/1"));

  it("deletes the group, its descendants, their projects, members rows and shares; answers 202", async () => {
    const w = await world();
    const owner = await w.user();
    const dev = await w.user();
    const group = await w.group({ owners: [owner] });
    const child = await w.group({ parent: group, developers: [dev] });
    const project = await w.project({ group: child, developers: [dev] });
    const outside = await w.group({ owners: [owner] });
    const outsideProject = await w.project({ group: outside });
    await linkProject(w, project.id, outside.id);
    await linkProject(w, outsideProject.id, child.id);

    const res = await w.as(owner).delete(`/groups/${group.id}`);
    expect(await statusAndBody(res)).toEqual([202, { message: "202 Accepted" }]);
    expect(queryCount(res)).toBeLessThanOrEqual(6);

    const left = await w.db((db) => db.select({ id: namespaces.id }).from(namespaces).where(inArray(namespaces.id, [group.id, child.id, outside.id])));
    expect(left).toEqual([{ id: outside.id }]);
    const projectsLeft = await w.db((db) => db.select({ id: projects.id }).from(projects).where(inArray(projects.id, [project.id, outsideProject.id])));
    expect(projectsLeft).toEqual([{ id: outsideProject.id }]);
    const membersLeft = await w.db((db) =>
      db
        .select()
        .from(members)
        .where(
          or(
            and(eq(members.sourceType, "Namespace"), inArray(members.sourceId, [group.id, child.id])),
            and(eq(members.sourceType, "Project"), eq(members.sourceId, project.id)),
          ),
        ),
    );
    expect(membersLeft).toEqual([]);
    const linksLeft = await w.db((db) =>
      db.select().from(projectGroupLinks).where(or(eq(projectGroupLinks.projectId, project.id), eq(projectGroupLinks.groupId, child.id))),
    );
    expect(linksLeft).toEqual([]);
    expect(await statusAndBody(await w.as(owner).get(`/groups/${group.id}`))).toEqual([404, { message: "404 Group Not Found" }]);
  });

  it("refuses maintainers (403) and callers who cannot see the group (404); admins may delete", async () => {
    const w = await world();
    const maintainer = await w.user();
    const group = await w.group({ maintainers: [maintainer] });
    expect(await statusAndBody(await w.as(maintainer).delete(`/groups/${group.id}`))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).delete(`/groups/${group.id}`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await groupRow(w, group.id)).toBeDefined();
    expect((await w.root.delete(`/groups/${group.id}`)).status).toBe(202);
    expect(await groupRow(w, group.id)).toBeUndefined();
  });

  it("answers 412 when the group changed after If-Unmodified-Since", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const stale = { "If-Unmodified-Since": new Date(Date.now() - 3_600_000).toUTCString() };
    expect(await statusAndBody(await w.as(owner).delete(`/groups/${group.id}`, { headers: stale }))).toEqual([
      412,
      { message: "412 Precondition Failed" },
    ]);
    expect(await groupRow(w, group.id)).toBeDefined();
    const fresh = { "If-Unmodified-Since": new Date(Date.now() + 3_600_000).toUTCString() };
    expect((await w.as(owner).delete(`/groups/${group.id}`, { headers: fresh })).status).toBe(202);
  });
});
