// Over HTTP: the git CLI's fixture history (test/git-fixtures.ts) loaded into a project;
// `GET /repository/commits` must page through exactly what `git log` prints, and its stats must be
// `git diff --numstat -M100%` summed. The exhaustive comparison is test/shared/git/oracle.test.ts.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projects } from "../../db/schema";
import type { Database } from "../../functions/kernel/db";
import { fromBase64 } from "../../functions/shared/git/pure/bytes";
import type { FixtureLogCase, FixtureLogQuery } from "../helpers/git-oracle-types";
import { loadFixtureRepo, openDb } from "../helpers/git-oracle";
import { world, type World } from "../helpers/world";

type Json = Record<string, any>;
const fixtures = inject("gitFixtures");

let w: World;
let db: Database;
let close: () => Promise<void>;
let projectId: number;

beforeAll(async () => {
  ({ db, close } = openDb());
  const repo = await loadFixtureRepo(db, fixtures);
  projectId = repo.projectId;
  // The loader writes objects and refs; the project row learns its default branch as a first push would.
  await db.update(projects).set({ defaultBranch: fixtures.defaultBranch, emptyRepo: false }).where(eq(projects.id, projectId));
  w = await world();
}, 120_000);

afterAll(async () => {
  await close();
});

function queryOf(q: FixtureLogQuery): Record<string, string | boolean> {
  return {
    ...(q.refName !== undefined ? { ref_name: q.refName } : {}),
    ...(q.all ? { all: true } : {}),
    ...(q.since !== undefined ? { since: new Date(q.since * 1000).toISOString() } : {}),
    ...(q.until !== undefined ? { until: new Date(q.until * 1000).toISOString() } : {}),
    ...(q.path !== undefined ? { path: q.path } : {}),
    ...(q.firstParent ? { first_parent: true } : {}),
    ...(q.order === "topo" ? { order: "topo" } : {}),
  };
}

/** Every page of 100 until a short one (a full `git log`), or the one page a paged case asks for. */
async function idsOverHttp(c: FixtureLogCase): Promise<string[]> {
  const path = `/projects/${projectId}/repository/commits`;
  if (c.query.limit < 1000) {
    const page = c.query.offset / c.query.limit + 1;
    const res = await w.root.get(path, { query: { ...queryOf(c.query), page, per_page: c.query.limit } });
    expect(res.status).toBe(200);
    return ((await res.json()) as Json[]).map((x) => x.id);
  }
  const out: string[] = [];
  for (let page = 1; page < 20; page++) {
    const res = await w.root.get(path, { query: { ...queryOf(c.query), page, per_page: 100 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json[];
    out.push(...body.map((x) => x.id));
    if (body.length < 100) break;
  }
  return out;
}

const noWindow = (q: FixtureLogQuery) => q.since === undefined && q.until === undefined;
const CHOSEN: [string, (q: FixtureLogQuery) => boolean][] = [
  ["the default branch", (q) => q.limit === 1000 && !q.all && q.refName === undefined && q.order === "default" && !q.firstParent && !q.path && noWindow(q)],
  ["a range with first_parent and a directory", (q) => q.limit === 1000 && q.refName === "v1.0..main" && q.order === "default" && !!q.firstParent && q.path === "src" && noWindow(q)],
  ["a symmetric range in topo order", (q) => q.limit === 1000 && q.refName === "release...wip" && q.order === "topo" && !q.firstParent && !q.path && noWindow(q)],
  ["a file with since and until", (q) => q.limit === 1000 && q.refName === "main" && q.order === "default" && !q.firstParent && q.path === "README.md" && q.since !== undefined && q.until !== undefined],
  ["main~7, topo, a file", (q) => q.limit === 1000 && q.refName === "main~7" && q.order === "topo" && !q.firstParent && q.path === "README.md" && noWindow(q)],
  ["a range with skewed clocks, first_parent and until", (q) => q.limit === 1000 && q.refName === "skewed..main" && !!q.firstParent && q.order === "default" && !q.path && q.since === undefined && q.until !== undefined],
  ["a tag, topo, first_parent", (q) => q.limit === 1000 && q.refName === "v1.0" && q.order === "topo" && !!q.firstParent && !q.path && noWindow(q)],
  ["pages of main, of all (reversed pages) and of all --topo-order for a path", (q) => q.limit < 1000 && q.offset % q.limit === 0],
];

describe("GET /projects/:id/repository/commits against git log", () => {
  for (const [label, predicate] of CHOSEN) {
    it(`gives git's commits in git's order: ${label}`, async () => {
      const cases = fixtures.logCases.filter((c) => predicate(c.query));
      expect(cases.length).toBeGreaterThan(0);
      const problems: string[] = [];
      for (const c of cases) {
        const got = await idsOverHttp(c);
        if (JSON.stringify(got) !== JSON.stringify(c.expected)) problems.push(`git ${c.name}: got ${got.length}, git ${c.expected.length}`);
      }
      expect(problems).toEqual([]);
    });
  }

  it("gives git's numstat sums as stats, and the signatures' dates in their own offsets", async () => {
    const res = await w.root.get(`/projects/${projectId}/repository/commits`, { query: { all: true, per_page: 100, with_stats: true } });
    const body = (await res.json()) as Json[];
    expect(body).toHaveLength(100);
    const raw = new Map(fixtures.objects.filter((o) => o.type === "commit").map((o) => [o.oid, new TextDecoder().decode(fromBase64(o.data))]));
    const formatted = (line: string) => {
      const m = / (\d+) ([+-])(\d\d)(\d\d)$/.exec(line)!;
      const offset = (m[2] === "-" ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
      return `${new Date((Number(m[1]) + offset * 60) * 1000).toISOString().slice(0, 23)}${m[2]}${m[3]}:${m[4]}`;
    };
    const problems: string[] = [];
    for (const commit of body) {
      const files = fixtures.numstat[commit.id];
      const additions = files.reduce((n, f) => n + (f.additions ?? 0), 0);
      const deletions = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
      const expected = { additions, deletions, total: additions + deletions };
      if (JSON.stringify(commit.stats) !== JSON.stringify(expected)) problems.push(`${commit.id} stats ${JSON.stringify(commit.stats)} != ${JSON.stringify(expected)}`);
      const text = raw.get(commit.id)!;
      const author = text.split("\n").find((l) => l.startsWith("author "))!;
      const committer = text.split("\n").find((l) => l.startsWith("committer "))!;
      if (commit.authored_date !== formatted(author)) problems.push(`${commit.id} authored_date ${commit.authored_date} for "${author}"`);
      if (commit.committed_date !== formatted(committer)) problems.push(`${commit.id} committed_date ${commit.committed_date} for "${committer}"`);
      if (commit.message !== text.slice(text.indexOf("\n\n") + 2)) problems.push(`${commit.id} message`);
    }
    expect(problems).toEqual([]);
  });
});
