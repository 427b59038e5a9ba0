import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

describe("GET /user_counts", () => {
  it("counts the caller's open assigned issues and merge requests, review requests and pending todos", async () => {
    const w = await world();
    const me = await w.user();
    const project = await w.project({ developers: [me] });
    await w.issue(project, { assigneeIds: [me.id] });
    const closed = await w.issue(project, { assigneeIds: [me.id] });
    await w.db((db) => db.execute(sql`UPDATE issues SET state = 'closed' WHERE id = ${closed.id}`));
    await w.db((db) =>
      db.execute(sql`INSERT INTO todos (user_id, project_id, target_type, target_id, action, state) VALUES
        (${me.id}, ${project.id}, 'Issue', ${closed.id}, 1, 'pending'), (${me.id}, ${project.id}, 'Issue', ${closed.id}, 2, 'done')`),
    );
    const res = await w.as(me).get("/user_counts");
    expect([res.status, await res.json()]).toEqual([
      200,
      { merge_requests: 0, assigned_issues: 1, assigned_merge_requests: 0, review_requested_merge_requests: 0, todos: 1 },
    ]);
  });

  it("is 401 anonymously", async () => {
    const w = await world();
    expect(await statusAndBody(await w.anonymous.get("/user_counts"))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});
