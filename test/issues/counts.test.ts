import fc from "fast-check";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../helpers/db";
import { world, type TestProject, type World } from "../helpers/world";
import { team } from "../helpers/api";
import { execute } from "./support";

/**
 * `issue_counts` (migration 0040): statement triggers on `issues` keep one count per project, state,
 * issue type, confidentiality and sorted label set; lists read it as a lower bound of their capped count
 * (kernel/pagination.ts `pageIdsWithCount`, issues/queries/list.ts `countedLowerBound`).
 */

/** What the counts must equal: the same grouping of the projects' issues, label ids sorted. */
const expectedCounts = (projectIds: number[]) => sql`
  SELECT project_id, state, issue_type, confidential, ARRAY(SELECT l FROM unnest(label_ids) AS l ORDER BY l) AS label_ids, count(*)::int AS count
  FROM issues WHERE project_id = ANY(${sql.param(projectIds)}::int[])
  GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`;
const keptCounts = (projectIds: number[]) => sql`
  SELECT project_id, state, issue_type, confidential, label_ids, count FROM issue_counts
  WHERE project_id = ANY(${sql.param(projectIds)}::int[]) ORDER BY 1, 2, 3, 4, 5`;

const states = ["opened", "closed"] as const;
const types = ["issue", "incident", "task"] as const;

/** One statement that writes issues, directly or through another table's cascade or trigger. */
type Write =
  | { op: "insert"; n: number; state: number; type: number; confidential: boolean; labels: number[] }
  | { op: "set"; column: "state" | "issue_type" | "confidential" | "title"; value: number; pick: number }
  | { op: "link" | "unlink"; label: number; pick: number }
  | { op: "move" | "delete"; pick: number }
  | { op: "dropLabel"; label: number };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    op: fc.constant("insert" as const),
    n: fc.integer({ min: 1, max: 6 }),
    state: fc.nat(1),
    type: fc.nat(2),
    confidential: fc.boolean(),
    labels: fc.subarray([0, 1, 2]),
  }),
  fc.record({ op: fc.constant("set" as const), column: fc.constantFrom("state", "issue_type", "confidential", "title"), value: fc.nat(2), pick: fc.nat(7) }),
  fc.record({ op: fc.constantFrom("link" as const, "unlink" as const), label: fc.nat(2), pick: fc.nat(7) }),
  fc.record({ op: fc.constantFrom("move" as const, "delete" as const), pick: fc.nat(7) }),
  fc.record({ op: fc.constant("dropLabel" as const), label: fc.nat(2) }),
);

async function labelsOf(w: World, project: TestProject): Promise<number[]> {
  const made = await rows<{ id: number }>(
    w,
    sql`INSERT INTO labels (project_id, title, color) SELECT ${project.id}::int, 'l' || g, '#428BCA' FROM generate_series(1, 3) g RETURNING id`,
  );
  return made.map((r) => Number(r.id));
}

describe("issue_counts, kept by the triggers on issues", () => {
  it("equals the issues' grouping after any statements that write them (property)", async () => {
    const w = await world();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 12 }), async (writes) => {
        run++;
        const [source, target] = [await w.project(), await w.project()];
        const labels = await labelsOf(w, source);
        const ids = [source.id, target.id];
        let nextIid = 1;
        const dropped = new Set<number>();
        await w.db(async (db) => {
          for (const s of writes) {
            if ((s.op === "link" || s.op === "unlink" || s.op === "dropLabel") && dropped.has(s.label)) continue;
            // Which issues a write touches: every `pick + 1`-th of the source project's, in id order.
            const picked = sql`(SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM issues WHERE project_id = ${source.id}::int) AS x
              WHERE x.n % ${s.op === "insert" || s.op === "dropLabel" ? 1 : s.pick + 1}::int = 0)`;
            if (s.op === "insert") {
              const labelIds = s.labels.filter((k) => !dropped.has(k)).map((k) => labels[k]);
              await db.execute(sql`INSERT INTO issues (iid, project_id, title, state, issue_type, confidential, label_ids)
                SELECT ${nextIid}::int + g, ${source.id}::int, 'counted', ${states[s.state]}, ${types[s.type]}, ${s.confidential}, ${sql.param(labelIds)}::int[]
                FROM generate_series(0, ${s.n - 1}::int) g`);
              // label_ids as the label_links trigger keeps them: the links exist too.
              if (labelIds.length)
                await db.execute(sql`INSERT INTO label_links (label_id, target_type, target_id)
                  SELECT l, 'Issue', i.id FROM issues i, unnest(${sql.param(labelIds)}::int[]) l WHERE i.project_id = ${source.id}::int AND i.iid >= ${nextIid}::int`);
              nextIid += s.n;
            } else if (s.op === "set") {
              const value =
                s.column === "state" ? states[s.value % 2] : s.column === "issue_type" ? types[s.value] : s.column === "confidential" ? s.value === 1 : `t${s.value}`;
              await db.execute(sql`UPDATE issues SET ${sql.identifier(s.column)} = ${value} WHERE id IN ${picked}`);
            } else if (s.op === "link") {
              await db.execute(sql`INSERT INTO label_links (label_id, target_type, target_id)
                SELECT ${labels[s.label]}::int, 'Issue', id FROM issues WHERE id IN ${picked} AND NOT ${labels[s.label]}::int = ANY(label_ids)`);
            } else if (s.op === "unlink") {
              await db.execute(sql`DELETE FROM label_links WHERE label_id = ${labels[s.label]}::int AND target_type = 'Issue' AND target_id IN ${picked}`);
            } else if (s.op === "move") {
              await db.execute(sql`UPDATE issues SET project_id = ${target.id}::int, iid = iid + 100000 * ${run}::int WHERE id IN ${picked}`);
            } else if (s.op === "delete") {
              await db.execute(sql`DELETE FROM issues WHERE id IN ${picked}`);
            } else if (s.op === "dropLabel") {
              // A label's deletion cascades to its links, whose trigger rewrites the issues' label_ids.
              await db.execute(sql`DELETE FROM labels WHERE id = ${labels[s.label]}::int`);
              dropped.add(s.label);
            }
          }
          const [expected, kept] = [(await db.execute(expectedCounts(ids))).rows, (await db.execute(keptCounts(ids))).rows];
          expect(kept).toEqual(expected);
        });
      }),
      { numRuns: 15 },
    );
  });

  it("drops a project's counts with its issues, and rolls back with a failed transaction", async () => {
    const w = await world();
    const project = await w.project();
    await w.issue(project);
    await w.issue(project, { confidential: true });
    expect(await rows(w, keptCounts([project.id]))).toEqual(await rows(w, expectedCounts([project.id])));
    const failed = w.db((db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`UPDATE issues SET state = 'closed' WHERE project_id = ${project.id}::int`);
        throw new Error("rolled back");
      }),
    );
    await expect(failed).rejects.toThrow("rolled back");
    expect(await rows(w, keptCounts([project.id]))).toEqual(await rows(w, expectedCounts([project.id])));
    await execute(w, sql`DELETE FROM projects WHERE id = ${project.id}::int`);
    expect(await rows(w, keptCounts([project.id]))).toEqual([]);
  });
});

/** 10,001 issues of `project` (just past GitLab's count limit), written in one statement. */
async function manyIssues(w: World, project: TestProject, values: { confidential?: boolean; labelIds?: number[] } = {}) {
  await execute(
    w,
    sql`INSERT INTO issues (iid, project_id, title, confidential, label_ids)
      SELECT g, ${project.id}::int, 'many ' || g, ${!!values.confidential}, ${sql.param(values.labelIds ?? [])}::int[] FROM generate_series(1, 10001) g`,
  );
}

const totals = (res: Response) => ({
  status: res.status,
  total: res.headers.get("x-total"),
  totalPages: res.headers.get("x-total-pages"),
  next: res.headers.get("x-next-page"),
});

// The answer with the bound must be the answer without it: past 10,000 no totals, below it exact ones.
describe("GET /projects/:id/issues, /groups/:id/issues, /issues: capped counts past 10,000", () => {
  it("omits the totals past 10,000 and counts exactly what each caller reads below it", async () => {
    const w = await world();
    const t = await team(w);
    const group = await w.group({ reporters: [t.reporter] });
    const labelled = await w.project({ group, visibility: "public" });
    const [a, b] = await labelsOf(w, labelled);
    await manyIssues(w, t.project, { confidential: true });
    await manyIssues(w, labelled, { labelIds: [a] });
    const past = { status: 200, total: null, totalPages: null, next: "2" };
    // Confidential issues: the owner and reporters read all of them; a guest none (the bound must not
    // count what the caller cannot read), nor an admin-less stranger.
    const list = `/projects/${t.project.id}/issues?per_page=2`;
    expect(totals(await w.as(t.owner).get(list))).toEqual(past);
    expect(totals(await w.as(t.reporter).get(list))).toEqual(past);
    expect(totals(await w.as(t.guest).get(list))).toEqual({ status: 200, total: "0", totalPages: "1", next: "" });
    expect(totals(await w.as(t.guest).get(`${list}&state=opened`))).toEqual({ status: 200, total: "0", totalPages: "1", next: "" });
    // Labels and state narrow the bound as they narrow the list.
    const groupList = `/groups/${group.id}/issues?per_page=2`;
    const title = async (id: number) => (await rows<{ title: string }>(w, sql`SELECT title FROM labels WHERE id = ${id}::int`))[0].title;
    const [ta, tb] = [await title(a), await title(b)];
    expect(totals(await w.as(t.reporter).get(`${groupList}&labels=${ta}&state=opened`))).toEqual(past);
    expect(totals(await w.anonymous.get(`/projects/${labelled.id}/issues?per_page=2&labels=${ta}`))).toEqual(past);
    expect(totals(await w.as(t.reporter).get(`${groupList}&labels=${ta},${tb}`))).toEqual({ status: 200, total: "0", totalPages: "1", next: "" });
    expect(totals(await w.as(t.reporter).get(`${groupList}&labels=${ta}&state=closed`))).toEqual({ status: 200, total: "0", totalPages: "1", next: "" });
    expect(totals(await w.root.get(`/issues?scope=all&per_page=2&labels=${ta}&state=opened`))).toEqual(past);
    // Below the cap the count is exact: one issue closed leaves 10,000 open.
    await execute(w, sql`UPDATE issues SET state = 'closed' WHERE project_id = ${labelled.id}::int AND iid = 1`);
    expect(totals(await w.as(t.reporter).get(`${groupList}&labels=${ta}&state=opened&per_page=100`))).toEqual({
      status: 200,
      total: "10000",
      totalPages: "100",
      next: "2",
    });
  });

  it("reads the kept counts instead of counting rows", async () => {
    const w = await world();
    const t = await team(w);
    await w.issue(t.project);
    const list = `/projects/${t.project.id}/issues?per_page=1`;
    expect(totals(await w.as(t.owner).get(list))).toEqual({ status: 200, total: "1", totalPages: "1", next: "" });
    // A count that says more than the cap is taken at its word (so the rows are not counted); a count
    // that says less is not (the rows are). Both lists, prepared (no filter) and built (a state filter).
    await execute(w, sql`UPDATE issue_counts SET count = 20000 WHERE project_id = ${t.project.id}::int`);
    expect(totals(await w.as(t.owner).get(list))).toMatchObject({ total: null, next: "2" });
    expect(totals(await w.as(t.owner).get(`${list}&state=opened`))).toMatchObject({ total: null, next: "2" });
    await execute(w, sql`UPDATE issue_counts SET count = 0 WHERE project_id = ${t.project.id}::int`);
    expect(totals(await w.as(t.owner).get(list))).toMatchObject({ total: "1" });
    expect(totals(await w.as(t.owner).get(`${list}&state=opened`))).toMatchObject({ total: "1" });
    // Any other filter counts rows: the kept counts know nothing of it.
    await execute(w, sql`UPDATE issue_counts SET count = 20000 WHERE project_id = ${t.project.id}::int`);
    expect(totals(await w.as(t.owner).get(`${list}&search=nothing-matches-this`))).toMatchObject({ total: "0" });
    expect(totals(await w.as(t.owner).get(`${list}&confidential=false`))).toMatchObject({ total: "1" });
  });
});

describe("issue_counts under concurrent API writes", () => {
  it("stays exact when requests write issues sharing counts at the same time (no deadlock reaches the caller)", async () => {
    const w = await world();
    const t = await team(w);
    const labels = ["c1", "c2", "c3"];
    for (const name of labels) await w.as(t.owner).post(`/projects/${t.project.id}/labels`, { json: { name, color: "#FF0000" } });
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, k) => w.as(t.owner).post(`/projects/${t.project.id}/issues`, { json: { title: `c${k}`, labels: labels[k % 3] } })),
    );
    expect(made.map((r) => r.status)).toEqual(Array(8).fill(201));
    const iids = await Promise.all(made.map(async (r) => ((await r.json()) as { iid: number }).iid));
    // Each request moves its issue between keys (state, labels, confidentiality) that the others move too.
    const updates = iids.flatMap((iid, k) => [
      { state_event: k % 2 ? "close" : "reopen", add_labels: labels[(k + 1) % 3], remove_labels: labels[k % 3] },
      { confidential: k % 2 === 0, add_labels: labels[(k + 2) % 3], state_event: "close" },
    ].map((json) => ({ iid, json })));
    const results = await Promise.all(updates.map(({ iid, json }) => w.as(t.owner).put(`/projects/${t.project.id}/issues/${iid}`, { json })));
    expect(results.map((r) => r.status)).toEqual(Array(updates.length).fill(200));
    const deleted = await Promise.all(iids.slice(0, 3).map((iid) => w.as(t.owner).delete(`/projects/${t.project.id}/issues/${iid}`)));
    expect(deleted.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(await rows(w, keptCounts([t.project.id]))).toEqual(await rows(w, expectedCounts([t.project.id])));
    expect((await rows<{ n: number }>(w, sql`SELECT sum(count)::int AS n FROM issue_counts WHERE project_id = ${t.project.id}::int`))[0].n).toBe(5);
  });
});
