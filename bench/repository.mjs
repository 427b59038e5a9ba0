// The git history the benches seed (bench/commits.mjs, bench/gpt.mjs): built by the git CLI
// (`git fast-import`, a second or two for 10,000 commits), then loaded into the database as the git core
// keeps it, straight by SQL before the server starts: the objects (git_objects, zlib-deflated), the commit
// index rows (git_commits, git_commit_changes, from `git log --raw --numstat --diff-merges=first-parent`,
// what the git core computes at write time) and the refs.
//
// The history: 100 files in `src/dir<d>/file<f>.txt` plus README.md, each commit on main editing one line of
// one file (README.md every 50th), and every 500 commits a 3-commit side branch merged back.
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

export const DIRS = 10;
export const FILES_PER_DIR = 10;
export const LINES = 30;
const SIDE_EVERY = 500;

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C", TZ: "UTC" };

export function git(dir, args, input) {
  return execFileSync("git", ["-c", "core.commitGraph=false", "-c", "gc.auto=0", ...args], { cwd: dir, env: GIT_ENV, input, maxBuffer: 1024 * 1024 * 1024 });
}

export const fileName = (d, f) => `src/dir${d}/file${f}.txt`;
export const initialContent = (p) => Array.from({ length: LINES }, (_, i) => `${p} line ${i}`).join("\n") + "\n";

/** A fast-import stream of `count` commits; returns the stream and the number of commits in it. */
function historyStream(count) {
  const TZS = ["+0000", "+0200", "-0700", "+0530"];
  const chunks = [];
  const files = new Map();
  let mark = 0;
  let made = 0;
  let time = 1_600_000_000;
  let mainTip = null;
  // mulberry32: a small seeded PRNG (an LCG's low bits would touch only a few of the files).
  let seed = 42;
  const random = (n) => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const data = (text) => {
    const bytes = Buffer.from(text);
    chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from("\n"));
  };
  const edit = (tree, p, n) => {
    const lines = tree.get(p).split("\n");
    lines[n % LINES] = `${p} edited by commit ${n}`;
    tree.set(p, lines.join("\n"));
  };
  const commit = (ref, parents, changes, message) => {
    mark += 1;
    made += 1;
    time += 60;
    const tz = TZS[made % TZS.length];
    chunks.push(Buffer.from(`commit ${ref}\nmark :${mark}\nauthor Bench Author ${made % 7} <author${made % 7}@example.com> ${time} ${tz}\ncommitter Bench Committer <committer@example.com> ${time} +0000\n`));
    data(message);
    if (parents[0]) chunks.push(Buffer.from(`from :${parents[0]}\n`));
    for (const p of parents.slice(1)) chunks.push(Buffer.from(`merge :${p}\n`));
    for (const [p, content] of changes) {
      chunks.push(Buffer.from(`M 100644 inline ${p}\n`));
      data(content);
    }
    return mark;
  };

  files.set("README.md", "# Bench\n");
  for (let d = 0; d < DIRS; d++) for (let f = 0; f < FILES_PER_DIR; f++) files.set(fileName(d, f), initialContent(fileName(d, f)));
  mainTip = commit("refs/heads/main", [], [...files.entries()], "Initial commit\n");
  while (made < count) {
    if (made % SIDE_EVERY === 0 && count - made >= 4) {
      // A side branch of three commits, merged back with a merge commit.
      const side = new Map(files);
      let sideTip = mainTip;
      const touched = new Set();
      for (let k = 0; k < 3; k++) {
        const p = fileName(random(DIRS), random(FILES_PER_DIR));
        edit(side, p, made);
        touched.add(p);
        sideTip = commit("refs/heads/side", [sideTip], [[p, side.get(p)]], `Side work ${made}\n`);
      }
      for (const p of touched) files.set(p, side.get(p));
      mainTip = commit("refs/heads/main", [mainTip, sideTip], [...touched].map((p) => [p, files.get(p)]), `Merge branch 'side' at ${made}\n`);
      continue;
    }
    const p = made % 50 === 0 ? "README.md" : fileName(random(DIRS), random(FILES_PER_DIR));
    if (p === "README.md") files.set(p, `${files.get(p)}Release ${made}\n`);
    else edit(files, p, made);
    mainTip = commit("refs/heads/main", [mainTip], [[p, files.get(p)]], `Change ${made}: edit ${p}\n\nA body line for commit ${made}.\n`);
  }
  return { stream: Buffer.concat(chunks), commits: made };
}

/** Every object of the repository: `{ oid, type, body }`. */
function exportObjects(dir) {
  const out = git(dir, ["cat-file", "--batch-all-objects", "--batch"]);
  const objects = [];
  let i = 0;
  while (i < out.length) {
    const nl = out.indexOf(10, i);
    const [oid, type, size] = out.subarray(i, nl).toString().split(" ");
    const start = nl + 1;
    objects.push({ oid, type, body: out.subarray(start, start + Number(size)) });
    i = start + Number(size) + 1;
  }
  return objects;
}

function parseIdent(line) {
  const m = /^(?:author|committer) (.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  return { name: m[1], email: m[2], time: Number(m[3]), tz: (m[4] === "-" ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6])) };
}

function parseCommit(body) {
  const text = body.toString("utf8");
  const split = text.indexOf("\n\n");
  const headers = text.slice(0, split).split("\n");
  const parents = [];
  let tree;
  let author;
  let committer;
  for (const h of headers) {
    if (h.startsWith("tree ")) tree = h.slice(5);
    else if (h.startsWith("parent ")) parents.push(h.slice(7));
    else if (h.startsWith("author ")) author = parseIdent(h);
    else if (h.startsWith("committer ")) committer = parseIdent(h);
  }
  return { tree, parents, author, committer, message: text.slice(split + 2) };
}

/** The changed paths of every commit against its first parent, as the commit index keeps them. */
function commitChanges(dir) {
  const out = git(dir, ["log", "--all", "--no-renames", "--diff-merges=first-parent", "--root", "--raw", "--numstat", "--no-abbrev", "--format=%x01%H"]).toString();
  const byCommit = new Map();
  for (const record of out.split("\x01").filter(Boolean)) {
    const lines = record.split("\n");
    const oid = lines[0].trim();
    const changes = new Map();
    for (const line of lines.slice(1)) {
      if (line.startsWith(":")) {
        const [meta, p] = line.slice(1).split("\t");
        const [oldMode, newMode, oldOid, newOid, status] = meta.split(" ");
        const zero = /^0+$/;
        changes.set(p, {
          path: p,
          status,
          oldMode: zero.test(oldMode) ? null : parseInt(oldMode, 8),
          newMode: zero.test(newMode) ? null : parseInt(newMode, 8),
          oldOid: zero.test(oldOid) ? null : oldOid,
          newOid: zero.test(newOid) ? null : newOid,
          additions: 0,
          deletions: 0,
          binary: false,
        });
      } else if (/^(\d+|-)\t(\d+|-)\t/.test(line)) {
        const [a, d, p] = line.split("\t");
        const change = changes.get(p);
        if (a === "-") change.binary = true;
        else {
          change.additions = Number(a);
          change.deletions = Number(d);
        }
      }
    }
    byCommit.set(oid, [...changes.values()]);
  }
  return byCommit;
}

/**
 * Builds a bare repository of `commits` commits in a temporary directory (removed by a cleanup pushed on
 * `cleanups`) and reads back what the database needs: `{ objects, changes, refs, commits, expected, mainLine }`;
 * `expected` holds `git log`'s first page of main, and of main limited to `pathFilter`; `mainLine` main's
 * first-parent commits, newest first.
 */
export function buildRepository({ commits: count, pathFilter, log, cleanups }) {
  const dir = execFileSync("mktemp", ["-d", path.join(os.tmpdir(), "edgeforge-bench-git-XXXXXX")]).toString().trim();
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  git(dir, ["init", "--quiet", "--bare", "-b", "main", "."]);
  let t = Date.now();
  const step = (what) => {
    log(`  ${what} ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
  };
  const { stream, commits } = historyStream(count);
  git(dir, ["fast-import", "--quiet"], stream);
  step("git fast-import");
  const objects = exportObjects(dir);
  step("git cat-file --batch-all-objects");
  const changes = commitChanges(dir);
  step("git log --raw --numstat");
  const refs = git(dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).toString().trim().split("\n").map((l) => l.split(" "));
  // What the two measured lists must answer: `git log`'s first page.
  const expected = {
    firstPage: git(dir, ["log", "--format=%H", "--max-count=20", "main"]).toString().trim().split("\n"),
    pathPage: git(dir, ["--literal-pathspecs", "log", "--format=%H", "--max-count=20", "main", "--", pathFilter]).toString().trim().split("\n"),
  };
  // main's first-parent line, newest first: what benches point branches, pipelines and merge requests at.
  const mainLine = git(dir, ["rev-list", "--first-parent", "main"]).toString().trim().split("\n");
  return { objects, changes, refs: new Map(refs), commits, expected, mainLine };
}

const TYPE_CODE = { commit: 1, tree: 2, blob: 3, tag: 4 };
const CHUNK = 2000;

/**
 * Loads `repo` (from buildRepository) into project `project`'s pool: objects, commit index rows, and its
 * refs plus `extraRefs` (`[name, oid]` pairs). Returns the row counts.
 */
export async function loadRepository(db, project, repo, extraRefs = []) {
  for (let i = 0; i < repo.objects.length; i += CHUNK) {
    const part = repo.objects.slice(i, i + CHUNK);
    await db.query(
      `INSERT INTO git_objects (pool_id, oid, type, size, zdata)
       SELECT $1::int, decode(o, 'hex'), t, s, decode(z, 'hex') FROM unnest($2::text[], $3::int[], $4::int[], $5::text[]) AS u(o, t, s, z)
       ON CONFLICT DO NOTHING`,
      [project, part.map((o) => o.oid), part.map((o) => TYPE_CODE[o.type]), part.map((o) => o.body.length), part.map((o) => zlib.deflateSync(o.body, { level: 6 }).toString("hex"))],
    );
  }

  const commits = new Map();
  for (const o of repo.objects) if (o.type === "commit") commits.set(o.oid, parseCommit(o.body));
  const generation = new Map();
  const generationOf = (oid) => {
    const stack = [oid];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (generation.has(top)) {
        stack.pop();
        continue;
      }
      const pending = commits.get(top).parents.filter((p) => !generation.has(p));
      if (pending.length) stack.push(...pending);
      else {
        generation.set(top, 1 + Math.max(0, ...commits.get(top).parents.map((p) => generation.get(p))));
        stack.pop();
      }
    }
    return generation.get(oid);
  };
  const rows = [...commits.entries()].map(([oid, c]) => {
    const changes = repo.changes.get(oid) ?? [];
    const text = changes.filter((ch) => !ch.binary);
    return {
      oid,
      c,
      generation: generationOf(oid),
      additions: text.reduce((n, ch) => n + ch.additions, 0),
      deletions: text.reduce((n, ch) => n + ch.deletions, 0),
      files: changes.length,
    };
  });
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const col = (f) => part.map(f);
    await db.query(
      `INSERT INTO git_commits (pool_id, oid, tree, parents, generation, author_name, author_email, authored_at, author_tz,
                                committer_name, committer_email, committed_at, committer_tz, message, additions, deletions, files_changed, changes_indexed)
       SELECT $1::int, oid, tree, string_to_array(parents, ','), gen, an, ae, to_timestamp(at), atz, cn, ce, to_timestamp(ct), ctz, msg, adds, dels, files, true
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::int[], $10::text[], $11::text[],
                   $12::bigint[], $13::int[], $14::text[], $15::int[], $16::int[], $17::int[])
         AS u(oid, tree, parents, gen, an, ae, at, atz, cn, ce, ct, ctz, msg, adds, dels, files)`,
      [
        project,
        col((r) => r.oid),
        col((r) => r.c.tree),
        col((r) => r.c.parents.join(",")),
        col((r) => r.generation),
        col((r) => r.c.author.name),
        col((r) => r.c.author.email),
        col((r) => r.c.author.time),
        col((r) => r.c.author.tz),
        col((r) => r.c.committer.name),
        col((r) => r.c.committer.email),
        col((r) => r.c.committer.time),
        col((r) => r.c.committer.tz),
        col((r) => r.c.message),
        col((r) => r.additions),
        col((r) => r.deletions),
        col((r) => r.files),
      ],
    );
  }

  const changeRows = [...repo.changes.entries()].flatMap(([oid, list]) => list.map((ch) => ({ oid, ...ch })));
  for (let i = 0; i < changeRows.length; i += CHUNK) {
    const part = changeRows.slice(i, i + CHUNK);
    const col = (f) => part.map(f);
    await db.query(
      `INSERT INTO git_commit_changes (pool_id, commit_oid, path, old_path, status, old_mode, new_mode, old_oid, new_oid, additions, deletions, "binary")
       SELECT $1::int, c, p, NULL, s, om, nm, oo, no, a, d, b
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::int[], $10::int[], $11::bool[])
         AS u(c, p, s, om, nm, oo, no, a, d, b)`,
      [
        project,
        col((r) => r.oid),
        col((r) => r.path),
        col((r) => r.status),
        col((r) => r.oldMode),
        col((r) => r.newMode),
        col((r) => r.oldOid),
        col((r) => r.newOid),
        col((r) => r.additions),
        col((r) => r.deletions),
        col((r) => r.binary),
      ],
    );
  }

  const refs = [...repo.refs.entries(), ...extraRefs];
  await db.query(`INSERT INTO git_refs (project_id, name, target) SELECT $1::int, n, t FROM unnest($2::text[], $3::text[]) AS u(n, t)`, [
    project,
    refs.map((r) => r[0]),
    refs.map((r) => r[1]),
  ]);
  return { commits: rows.length, objects: repo.objects.length, changes: changeRows.length };
}
