// Node side of the git oracle (docs/git.md, "Testing against git", docs/testing.md, "How `npm test` runs"): builds a history of 250+ commits with
// the git CLI (`git fast-import`, so it takes well under a second), with branches, merges (octopus,
// criss-cross, evil), an orphan root, renames, binary files, files without a final newline, a symlink,
// a submodule entry, skewed committer clocks and annotated tags; then exports every object and what git
// answers: `git log` in many variants, `git diff --numstat -M100%` per commit, `git merge-file` cases.
// Deterministic (seeded), so a failure reproduces.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FixtureLogCase, FixtureLogQuery, FixtureMergeCase, FixtureNumstat, GitFixtures } from "./helpers/git-oracle-types";

type Mode = "100644" | "100755" | "120000" | "160000";
type File = { mode: Mode; content: Buffer };
type Tree = Map<string, File>;
type Branch = { name: string; tip: number | null; files: Tree; clock: number; base: Tree; lastTime?: number };

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_LITERAL_PATHSPECS: "1",
  LC_ALL: "C",
  TZ: "UTC",
};

function git(dir: string, args: string[], input?: Buffer | string): Buffer {
  return execFileSync("git", ["-c", "core.commitGraph=false", "-c", "gc.auto=0", ...args], {
    cwd: dir,
    env: GIT_ENV,
    input,
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: T[]): T => list[Math.floor(next() * list.length)],
    chance: (p: number) => next() < p,
  };
}

const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega value index count total buffer stream token parser render commit branch merge".split(" ");

function makeLine(r: ReturnType<typeof prng>): string {
  const roll = r.next();
  if (roll < 0.08) return "";
  if (roll < 0.14) return "}";
  if (roll < 0.18) return "  return result;";
  const n = 2 + r.int(5);
  const words = Array.from({ length: n }, () => r.pick(WORDS));
  return roll < 0.5 ? `  ${words.join(" ")};` : `${words.join("_")}(${r.int(100)}) {`;
}

function makeText(r: ReturnType<typeof prng>, lines: number, finalNewline = true): Buffer {
  const body = Array.from({ length: lines }, () => makeLine(r)).join("\n");
  return Buffer.from(finalNewline ? `${body}\n` : body);
}

/** A realistic edit: a few replacements, insertions and deletions, keeping the final-newline state. */
function editText(r: ReturnType<typeof prng>, content: Buffer): Buffer {
  const text = content.toString("utf8");
  const finalNewline = text.endsWith("\n");
  const lines = (finalNewline ? text.slice(0, -1) : text).split("\n");
  const ops = 1 + r.int(3);
  for (let i = 0; i < ops; i++) {
    const at = r.int(lines.length + 1);
    const kind = r.next();
    if (kind < 0.45 && lines.length) lines[Math.min(at, lines.length - 1)] = makeLine(r);
    else if (kind < 0.8) lines.splice(at, 0, ...Array.from({ length: 1 + r.int(4) }, () => makeLine(r)));
    else if (lines.length > 2) lines.splice(Math.min(at, lines.length - 1), 1 + r.int(3));
  }
  const body = lines.join("\n");
  return Buffer.from(finalNewline ? `${body}\n` : body);
}

function makeBinary(r: ReturnType<typeof prng>, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = r.int(256);
  out[3] = 0;
  return out;
}

const sameFile = (a: File | undefined, b: File | undefined) =>
  a === b || (!!a && !!b && a.mode === b.mode && a.content.equals(b.content));

const TZS = ["+0000", "+0200", "-0700", "+0530", "-0330", "+0100"];

class HistoryBuilder {
  private stream: Buffer[] = [];
  private mark = 0;
  private blobMarks = new Map<string, number>();
  readonly commitMarks: number[] = [];
  commits = 0;
  merges = 0;

  constructor(private readonly r: ReturnType<typeof prng>) {}

  private write(text: string | Buffer) {
    this.stream.push(typeof text === "string" ? Buffer.from(text) : text);
  }

  private data(content: Buffer) {
    this.write(`data ${content.length}\n`);
    this.write(content);
    this.write("\n");
  }

  private blob(content: Buffer): number {
    const key = content.toString("base64");
    const known = this.blobMarks.get(key);
    if (known) return known;
    const mark = ++this.mark;
    this.write(`blob\nmark :${mark}\n`);
    this.data(content);
    this.blobMarks.set(key, mark);
    return mark;
  }

  commit(opts: { ref: string; parents: number[]; files: Tree; author: string; authorTime: number; committerTime: number; message: string }): number {
    const lines: string[] = [];
    for (const [path, file] of [...opts.files.entries()].sort()) {
      if (file.mode === "160000") lines.push(`M 160000 ${file.content.toString("utf8")} ${path}`);
      else lines.push(`M ${file.mode} :${this.blob(file.content)} ${path}`);
    }
    const mark = ++this.mark;
    const tzA = this.r.pick(TZS);
    const tzC = this.r.pick(TZS);
    this.write(`commit ${opts.ref}\nmark :${mark}\n`);
    this.write(`author ${opts.author} ${opts.authorTime} ${tzA}\n`);
    this.write(`committer Committer Ünïcode <committer@example.com> ${opts.committerTime} ${tzC}\n`);
    this.data(Buffer.from(opts.message));
    if (opts.parents.length) this.write(`from :${opts.parents[0]}\n`);
    for (const parent of opts.parents.slice(1)) this.write(`merge :${parent}\n`);
    this.write("deleteall\n");
    for (const line of lines) this.write(`${line}\n`);
    this.write("\n");
    this.commitMarks.push(mark);
    this.commits++;
    if (opts.parents.length > 1) this.merges++;
    return mark;
  }

  reset(ref: string, mark: number) {
    this.write(`reset ${ref}\nfrom :${mark}\n\n`);
  }

  tag(name: string, mark: number, time: number, message: string) {
    this.write(`tag ${name}\nfrom :${mark}\ntagger Release Bot <bot@example.com> ${time} +0100\n`);
    this.data(Buffer.from(message));
  }

  bytes(): Buffer {
    return Buffer.concat([...this.stream, Buffer.from("done\n")]);
  }
}

const MESSAGES = [
  "Fix the parser for empty input\n",
  "Add tests\n\nCovers the edge cases found in review.\n",
  "Refactor buffer handling",
  "Update docs\n",
  "Bump version to 1.2.3\n\nSigned-off-by: Dev <dev@example.com>\n",
  "WIP\r\n\r\nwindows line endings\r\n",
  "Ünïcode message: naïve café ✓\n",
  "A very long title that goes on and on beyond one hundred characters to check truncation rules in entities ok\n\nbody\n",
];

const AUTHORS = ["Alice <alice@example.com>", "Bob <bob@example.com>", "Carol Ünïcode <carol@example.com>", "Dave <dave@example.com>"];

/** Builds the history into `dir` (a bare repository) and returns names worth querying. */
function buildHistory(dir: string) {
  const r = prng(20240501);
  const h = new HistoryBuilder(r);
  const T0 = 1_600_000_000;
  const marks: Record<string, number> = {};

  const initial: Tree = new Map();
  initial.set("README.md", { mode: "100644", content: makeText(r, 12) });
  initial.set("LICENSE", { mode: "100644", content: makeText(r, 20) });
  initial.set("src/main.c", { mode: "100644", content: makeText(r, 40) });
  initial.set("src/lib/list.c", { mode: "100644", content: makeText(r, 30) });
  initial.set("src/lib/list.h", { mode: "100644", content: makeText(r, 10) });
  initial.set("src/util/strings.c", { mode: "100644", content: makeText(r, 25, false) });
  initial.set("docs/intro.md", { mode: "100644", content: makeText(r, 15) });
  initial.set("docs/old-guide.md", { mode: "100644", content: makeText(r, 18) });
  initial.set("bin/blob.dat", { mode: "100644", content: makeBinary(r, 300) });
  initial.set("link", { mode: "120000", content: Buffer.from("README.md") });
  initial.set("scripts/build.sh", { mode: "100644", content: makeText(r, 8) });
  initial.set("empty.txt", { mode: "100644", content: Buffer.alloc(0) });

  const branches = new Map<string, Branch>();
  const main: Branch = { name: "main", tip: null, files: new Map(initial), clock: T0, base: new Map() };
  branches.set("main", main);

  const paths = () => ["README.md", "src/main.c", "src/lib/list.c", "src/lib/list.h", "src/util/strings.c", "docs/intro.md", "LICENSE", "scripts/build.sh"];

  const commitOn = (b: Branch, files: Tree, opts: { message?: string; parents?: number[]; skew?: number; sameTimeAs?: number } = {}) => {
    b.clock += 60 + r.int(7200);
    const committerTime = opts.sameTimeAs ?? b.clock + (opts.skew ?? 0);
    const authorTime = committerTime - r.int(5000);
    const parents = opts.parents ?? (b.tip ? [b.tip] : []);
    b.tip = h.commit({
      ref: `refs/heads/${b.name}`,
      parents,
      files,
      author: r.pick(AUTHORS),
      authorTime,
      committerTime,
      message: opts.message ?? r.pick(MESSAGES),
    });
    b.files = new Map(files);
    b.lastTime = committerTime;
    return { mark: b.tip, time: committerTime };
  };

  /** A random ordinary change to a branch's files. */
  const change = (b: Branch, opts: { skew?: number; sameTimeAs?: number } = {}) => {
    const files = new Map(b.files);
    const roll = r.next();
    const existing = [...files.keys()].filter((p) => files.get(p)!.mode !== "160000");
    if (roll < 0.6) {
      const n = 1 + r.int(3);
      for (let i = 0; i < n; i++) {
        const path = r.pick(paths().filter((p) => files.has(p)).concat(existing.filter((p) => p.startsWith("src/") || p.startsWith("docs/"))));
        const file = files.get(path);
        if (file && file.mode !== "120000") files.set(path, { mode: file.mode, content: editText(r, file.content) });
      }
    } else if (roll < 0.7) {
      files.set(`src/gen/file${r.int(1000)}.c`, { mode: "100644", content: makeText(r, 5 + r.int(20)) });
    } else if (roll < 0.76) {
      const victims = existing.filter((p) => p.startsWith("src/gen/"));
      if (victims.length) files.delete(r.pick(victims));
      else files.set("docs/notes.txt", { mode: "100644", content: makeText(r, 6, r.chance(0.5)) });
    } else if (roll < 0.84) {
      // exact rename, sometimes to a new directory
      const candidates = existing.filter((p) => p.startsWith("src/gen/") || p.startsWith("docs/"));
      if (candidates.length) {
        const from = r.pick(candidates);
        const to = r.chance(0.5) ? `moved/${from.split("/").pop()}` : `${from}.renamed`;
        if (!files.has(to)) {
          files.set(to, files.get(from)!);
          files.delete(from);
        }
      }
    } else if (roll < 0.88) {
      files.set("bin/blob.dat", { mode: "100644", content: makeBinary(r, 200 + r.int(400)) });
    } else if (roll < 0.92) {
      const file = files.get("scripts/build.sh");
      if (file) files.set("scripts/build.sh", { mode: file.mode === "100755" ? "100644" : "100755", content: file.content });
    } else if (roll < 0.95) {
      files.set("link", { mode: "120000", content: Buffer.from(r.pick(["README.md", "docs/intro.md", "src/main.c"])) });
    } else {
      // rename with modification (a deletion plus an addition for -M100%)
      const from = r.pick(existing.filter((p) => p.startsWith("src/")));
      if (from && files.get(from)!.mode !== "120000") {
        files.set(`${from}.v2`, { mode: "100644", content: editText(r, files.get(from)!.content) });
        files.delete(from);
      }
    }
    return commitOn(b, files, opts);
  };

  const fork = (name: string, from: Branch, clockOffset = 0): Branch => {
    const b: Branch = { name, tip: from.tip, files: new Map(from.files), clock: from.clock + clockOffset, base: new Map(from.files) };
    branches.set(name, b);
    return b;
  };

  /** Merges `others` into `into` with a tree that takes each side's changes against its fork point. */
  const merge = (into: Branch, others: Branch[], opts: { evil?: boolean; message?: string } = {}) => {
    let files = new Map(into.files);
    for (const other of others) {
      const next = new Map(files);
      const all = new Set([...files.keys(), ...other.files.keys()]);
      for (const path of all) {
        const o = files.get(path);
        const t = other.files.get(path);
        const b = other.base.get(path);
        if (sameFile(o, t)) continue;
        if (sameFile(b, o)) {
          if (t) next.set(path, t);
          else next.delete(path);
        } else if (sameFile(b, t)) continue;
        else if (t && r.chance(0.5)) next.set(path, t); // a "resolution" taking theirs
      }
      files = next;
    }
    if (opts.evil) {
      const path = r.pick(paths().filter((p) => files.has(p)));
      files.set(path, { mode: files.get(path)!.mode, content: editText(r, files.get(path)!.content) });
    }
    into.clock = Math.max(into.clock, ...others.map((o) => o.clock));
    const result = commitOn(into, files, {
      parents: [into.tip!, ...others.map((o) => o.tip!)],
      message: opts.message ?? `Merge branch '${others.map((o) => o.name).join("', '")}' into ${into.name}\n`,
    });
    for (const other of others) other.base = new Map(into.files);
    return result;
  };

  // Root and early history.
  commitOn(main, new Map(initial), { message: "Initial commit\n" });
  for (let i = 0; i < 12; i++) change(main);
  marks.early = main.tip!;

  // Feature branches merged back, some while main moves on.
  const featureNames: string[] = [];
  for (let round = 0; round < 9; round++) {
    const feature = fork(`feature/f${round}`, main);
    featureNames.push(feature.name);
    const n = 2 + r.int(6);
    for (let i = 0; i < n; i++) change(feature);
    if (r.chance(0.6)) for (let i = 0; i < 1 + r.int(3); i++) change(main);
    // Equal committer dates on both sides of a merge: git pops them in insertion order.
    if (round % 3 === 1) change(feature, { sameTimeAs: main.lastTime });
    merge(main, [feature], { evil: round % 4 === 2 });
    for (let i = 0; i < 2 + r.int(3); i++) change(main);
  }
  marks.v1 = main.tip!;
  h.tag("v1.0", main.tip!, main.clock + 10, "Release 1.0\n");

  // A branch with a clock two days behind: its commits are older than their parents.
  const skewed = fork("skewed", main, -2 * 86400);
  for (let i = 0; i < 6; i++) change(skewed);
  for (let i = 0; i < 3; i++) change(main);
  merge(main, [skewed]);
  // A commit dated exactly like its parent, and one like another branch's commit.
  const same = change(main);
  change(main, { sameTimeAs: same.time });

  // Criss-cross merges between two branches.
  const a = fork("topic/a", main);
  const b = fork("topic/b", main);
  for (let i = 0; i < 3; i++) change(a);
  for (let i = 0; i < 3; i++) change(b);
  const aBefore = { tip: a.tip, files: new Map(a.files), clock: a.clock };
  merge(a, [{ ...b, base: new Map(b.base) }]);
  merge(b, [{ name: "topic/a", tip: aBefore.tip, files: aBefore.files, clock: aBefore.clock, base: new Map(b.base) }]);
  for (let i = 0; i < 2; i++) change(a);
  for (let i = 0; i < 2; i++) change(b);
  merge(main, [a]);
  change(main);
  merge(main, [b], { evil: true });

  // An octopus merge of three branches.
  const octo = [fork("octo/one", main), fork("octo/two", main), fork("octo/three", main)];
  for (const o of octo) for (let i = 0; i < 2 + r.int(3); i++) change(o);
  change(main);
  merge(main, octo, { message: "Merge branches 'octo/one', 'octo/two' and 'octo/three'\n" });

  // An orphan branch (a second root) merged in.
  const site: Branch = { name: "site", tip: null, files: new Map(), clock: main.clock - 86400, base: new Map() };
  branches.set("site", site);
  const siteFiles: Tree = new Map([["site/index.html", { mode: "100644", content: makeText(r, 10) }]]);
  commitOn(site, siteFiles, { message: "Start the site\n" });
  for (let i = 0; i < 3; i++) {
    const files = new Map(site.files);
    files.set("site/index.html", { mode: "100644", content: editText(r, files.get("site/index.html")!.content) });
    files.set(`site/page${i}.html`, { mode: "100644", content: makeText(r, 4) });
    commitOn(site, files);
  }
  merge(main, [site]);

  // A type change (file -> symlink), a submodule entry, and a file that loses its final newline.
  {
    const files = new Map(main.files);
    files.set("scripts/build.sh", { mode: "120000", content: Buffer.from("../bin/build") });
    files.set("vendor/lib", { mode: "160000", content: Buffer.from("0123456789abcdef0123456789abcdef01234567") });
    commitOn(main, files, { message: "Vendor lib as a submodule\n" });
    const files2 = new Map(main.files);
    const text = files2.get("README.md")!.content.toString();
    files2.set("README.md", { mode: "100644", content: Buffer.from(text.replace(/\n$/, "")) });
    files2.set("vendor/lib", { mode: "160000", content: Buffer.from("89abcdef0123456789abcdef0123456789abcdef") });
    commitOn(main, files2, { message: "No final newline in README" });
  }

  // A long-lived release branch and more history.
  const release = fork("release", main);
  for (let i = 0; i < 8; i++) change(release);
  for (let round = 9; round < 16; round++) {
    const feature = fork(`feature/f${round}`, main, round % 3 === 0 ? -3600 * 30 : 0);
    featureNames.push(feature.name);
    for (let i = 0; i < 2 + r.int(5); i++) change(feature);
    if (r.chance(0.5)) change(main);
    merge(main, [feature], { evil: round === 12 });
    change(main);
  }
  marks.v2 = main.tip!;
  h.tag("v2.0", main.tip!, main.clock + 5, "Release 2.0\n\nWith notes.\n");
  merge(release, [main]);
  for (let i = 0; i < 3; i++) change(release);

  // An unmerged branch and an unmerged skewed branch.
  const wip = fork("wip", main);
  for (let i = 0; i < 7; i++) change(wip, { skew: i % 2 ? -7200 : 3600 });
  for (let i = 0; i < 30; i++) change(main);

  for (const branch of branches.values()) if (branch.tip) h.reset(`refs/heads/${branch.name}`, branch.tip);
  h.reset("refs/tags/v0.9", marks.early);
  h.tag("annotated-early", marks.early, T0 + 500, "Early\n");

  git(dir, ["fast-import", "--quiet", "--date-format=raw"], h.bytes());
  return { commits: h.commits, merges: h.merges, branches: [...branches.keys()], featureNames };
}

function logArgs(q: FixtureLogQuery): string[] {
  const args = ["log", "--format=%H"];
  if (q.offset > 0) args.push(`--skip=${q.offset}`);
  args.push(`--max-count=${q.limit}`);
  if (q.until !== undefined) args.push(`--before=@${q.until}`);
  if (q.since !== undefined) args.push(`--after=@${q.since}`);
  if (q.all) args.push("--all", "--reverse");
  if (!q.all) args.push(q.refName ?? "main");
  if (q.firstParent) args.push("--first-parent");
  if (q.order === "topo") args.push("--topo-order");
  if (q.path !== undefined) args.push("--", q.path);
  return args;
}

/**
 * Runs every `git log` in one shell process (spawning git from Node costs ~15 ms a call on a busy
 * machine; from a shell it is a few): each output ends with a marker line.
 */
function runLogs(dir: string, queries: FixtureLogQuery[]): FixtureLogCase[] {
  const quote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;
  const marker = "@@edgeforge-end@@";
  const script = queries
    .map((q) => `git -c core.commitGraph=false -c gc.auto=0 --literal-pathspecs ${logArgs(q).map(quote).join(" ")}; echo ${marker}`)
    .join("\n");
  const out = execFileSync("bash", ["-e", "-s"], { cwd: dir, env: GIT_ENV, input: script, maxBuffer: 256 * 1024 * 1024 }).toString();
  const outputs = out.split(`${marker}\n`);
  return queries.map((q, i) => {
    const args = logArgs(q);
    const text = outputs[i].trim();
    return { name: args.slice(2).join(" "), args, query: q, expected: text ? text.split("\n") : [] };
  });
}

/** Parses `git diff --numstat -z` output (renames as `\0old\0new\0`). */
function parseNumstat(text: string): FixtureNumstat[] {
  const files: FixtureNumstat[] = [];
  let rest = text;
  while (rest.length) {
    rest = rest.replace(/^[\0\n]+/, "");
    if (!rest.length) break;
    const m = /^(-|\d+)\t(-|\d+)\t/.exec(rest);
    if (!m) throw new Error(`bad numstat record: ${JSON.stringify(rest.slice(0, 80))}`);
    rest = rest.slice(m[0].length);
    let path: string;
    let oldPath: string | null = null;
    if (rest.startsWith("\0")) {
      const parts = rest.slice(1).split("\0");
      oldPath = parts[0];
      path = parts[1];
      rest = parts.slice(2).join("\0");
    } else {
      const end = rest.indexOf("\0");
      path = rest.slice(0, end);
      rest = rest.slice(end + 1);
    }
    files.push({ path, oldPath, additions: m[1] === "-" ? null : Number(m[1]), deletions: m[2] === "-" ? null : Number(m[2]) });
  }
  return files;
}

/** `git merge-base` of ref lists, and `compare` answers: `git log --reverse from..to`, `git diff --numstat`. */
function compareCases(dir: string): Pick<GitFixtures, "mergeBases" | "compares"> {
  const mergeBases: GitFixtures["mergeBases"] = [];
  for (const refs of [["main", "wip"], ["release", "wip"], ["topic/a", "topic/b"], ["main", "release", "wip"], ["main", "skewed"], ["v1.0", "main"], ["main~3", "main"], ["site", "main"]]) {
    let expected: string | null = null;
    try {
      expected = git(dir, ["merge-base", ...refs]).toString().trim() || null;
    } catch {
      expected = null; // exit 1: no common ancestor
    }
    mergeBases.push({ refs, expected });
  }
  const compares: GitFixtures["compares"] = [];
  for (const [from, to] of [["v1.0", "main"], ["main", "release"], ["topic/a", "topic/b"], ["release", "wip"], ["main~5", "main"], ["main", "main"], ["skewed", "main"]]) {
    for (const straight of [false, true]) {
      const log = git(dir, ["log", "--reverse", "--format=%H", `${from}..${to}`]).toString().trim();
      const numstat = git(dir, ["diff", "--numstat", "-z", "-M100%", straight ? `${from}..${to}` : `${from}...${to}`]).toString("utf8");
      compares.push({ from, to, straight, commits: log ? log.split("\n") : [], numstat: parseNumstat(numstat) });
    }
  }
  return { mergeBases, compares };
}

function numstats(dir: string): Record<string, FixtureNumstat[]> {
  const out = git(dir, ["log", "--all", "--format=%x01%H", "--numstat", "-z", "-M100%", "--diff-merges=first-parent", "--root"]);
  const result: Record<string, FixtureNumstat[]> = {};
  const records = out.toString("utf8").split("\x01").filter(Boolean);
  for (const record of records) {
    const oid = record.slice(0, 40);
    let rest = record.slice(40).replace(/^[\0\n]+/, "");
    const files: FixtureNumstat[] = [];
    while (rest.length) {
      rest = rest.replace(/^[\0\n]+/, "");
      if (!rest.length) break;
      const m = /^(-|\d+)\t(-|\d+)\t/.exec(rest);
      if (!m) throw new Error(`bad numstat record: ${JSON.stringify(rest.slice(0, 80))}`);
      rest = rest.slice(m[0].length);
      let path: string;
      let oldPath: string | null = null;
      if (rest.startsWith("\0")) {
        // rename: \0old\0new\0
        const parts = rest.slice(1).split("\0");
        oldPath = parts[0];
        path = parts[1];
        rest = parts.slice(2).join("\0");
      } else {
        const end = rest.indexOf("\0");
        path = rest.slice(0, end);
        rest = rest.slice(end + 1);
      }
      files.push({ path, oldPath, additions: m[1] === "-" ? null : Number(m[1]), deletions: m[2] === "-" ? null : Number(m[2]) });
    }
    result[oid] = files;
  }
  return result;
}

function exportObjects(dir: string) {
  const out = git(dir, ["cat-file", "--batch-all-objects", "--batch"]);
  const objects: GitFixtures["objects"] = [];
  let i = 0;
  while (i < out.length) {
    const nl = out.indexOf(10, i);
    const [oid, type, size] = out.subarray(i, nl).toString().split(" ");
    const start = nl + 1;
    const body = out.subarray(start, start + Number(size));
    objects.push({ oid, type: type as GitFixtures["objects"][number]["type"], data: body.toString("base64") });
    i = start + Number(size) + 1;
  }
  return objects;
}

function mergeCases(dir: string): FixtureMergeCase[] {
  const r = prng(777);
  const cases: { name: string; ours: string; base: string; theirs: string }[] = [
    { name: "identical edits", base: "a\nb\nc\n", ours: "a\nB\nc\n", theirs: "a\nB\nc\n" },
    { name: "disjoint edits", base: "1\n2\n3\n4\n5\n6\n7\n8\n", ours: "1\nX\n3\n4\n5\n6\n7\n8\n", theirs: "1\n2\n3\n4\n5\n6\nY\n8\n" },
    { name: "same line", base: "a\nb\nc\n", ours: "a\nx\nc\n", theirs: "a\ny\nc\n" },
    { name: "adjacent lines", base: "a\nb\nc\nd\n", ours: "a\nB\nc\nd\n", theirs: "a\nb\nC\nd\n" },
    { name: "insert both ends", base: "m\n", ours: "top\nm\n", theirs: "m\nbottom\n" },
    { name: "delete vs edit elsewhere", base: "1\n2\n3\n4\n5\n6\n", ours: "1\n2\n4\n5\n6\n", theirs: "1\n2\n3\n4\n5\nsix\n" },
    { name: "no final newline", base: "a\nb", ours: "a\nb\n", theirs: "A\nb" },
    { name: "empty base", base: "", ours: "x\n", theirs: "y\n" },
    { name: "empty base same", base: "", ours: "x\n", theirs: "x\n" },
    { name: "one side deletes all", base: "a\nb\n", ours: "", theirs: "a\nb\n" },
  ];
  for (let i = 0; i < 60; i++) {
    const base = makeText(r, 10 + r.int(40), r.chance(0.9));
    const ours = editText(r, base);
    const theirs = r.chance(0.15) ? editText(r, ours) : editText(r, base);
    cases.push({ name: `random ${i}`, base: base.toString(), ours: ours.toString(), theirs: theirs.toString() });
  }
  return cases.map((c) => {
    const o = join(dir, "ours");
    const b = join(dir, "base");
    const t = join(dir, "theirs");
    writeFileSync(o, c.ours);
    writeFileSync(b, c.base);
    writeFileSync(t, c.theirs);
    const res = spawnSync("git", ["merge-file", "-p", o, b, t], { env: GIT_ENV });
    if (res.status === null || res.status < 0) throw new Error(`git merge-file failed: ${res.stderr}`);
    return { ...c, clean: res.status === 0, result: res.stdout.toString() };
  });
}

/**
 * The fixtures, cached in the temp folder by a hash of this file and the git version: building them
 * takes a few seconds, and every `vitest` run's global setup asks for them.
 */
export function gitFixtures(): GitFixtures {
  const version = execFileSync("git", ["--version"], { env: GIT_ENV }).toString().trim();
  const source = readFileSync(fileURLToPath(import.meta.url));
  const key = createHash("sha256").update(source).update(version).digest("hex").slice(0, 16);
  const cache = join(tmpdir(), `edgeforge-git-fixtures-${key}.json`);
  if (existsSync(cache)) {
    try {
      return JSON.parse(readFileSync(cache, "utf8")) as GitFixtures;
    } catch {
      // a torn write from a concurrent run: rebuild
    }
  }
  const fixtures = buildGitFixtures();
  const partial = `${cache}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(fixtures));
  renameSync(partial, cache);
  return fixtures;
}

export function buildGitFixtures(): GitFixtures {
  const root = mkdtempSync(join(tmpdir(), "edgeforge-git-"));
  const dir = join(root, "repo.git");
  try {
    execFileSync("git", ["init", "--quiet", "--bare", "-b", "main", dir], { env: GIT_ENV });
    const history = buildHistory(dir);
    const refs = git(dir, ["for-each-ref", "--format=%(refname) %(objectname) %(*objectname)"])
      .toString()
      .trim()
      .split("\n")
      .map((line) => {
        const [name, target, peeled] = line.split(" ");
        return { name, target, peeled: peeled || null };
      });
    const commitTimes = git(dir, ["log", "--all", "--format=%ct"]).toString().trim().split("\n").map(Number).sort((x, y) => x - y);
    const q = (p: number) => commitTimes[Math.floor(p * (commitTimes.length - 1))];
    const mid = git(dir, ["rev-parse", "main~20"]).toString().trim();

    const revs: FixtureLogQuery[] = [
      { order: "default", offset: 0, limit: 1000 },
      { refName: "main", order: "default", offset: 0, limit: 1000 },
      { refName: "wip", order: "default", offset: 0, limit: 1000 },
      { refName: "release", order: "default", offset: 0, limit: 1000 },
      { refName: "v1.0", order: "default", offset: 0, limit: 1000 },
      { refName: "v0.9", order: "default", offset: 0, limit: 1000 },
      { refName: mid, order: "default", offset: 0, limit: 1000 },
      { refName: mid.slice(0, 8), order: "default", offset: 0, limit: 1000 },
      { refName: "main~7", order: "default", offset: 0, limit: 1000 },
      { refName: "v1.0..main", order: "default", offset: 0, limit: 1000 },
      { refName: "main..release", order: "default", offset: 0, limit: 1000 },
      { refName: "topic/a..topic/b", order: "default", offset: 0, limit: 1000 },
      { refName: "release...wip", order: "default", offset: 0, limit: 1000 },
      { refName: "skewed..main", order: "default", offset: 0, limit: 1000 },
      { all: true, order: "default", offset: 0, limit: 1000 },
    ];
    const paths: (string | undefined)[] = [undefined, "README.md", "src", "src/lib/", "docs/old-guide.md", "site", "no/such/path"];
    const windows: { since?: number; until?: number }[] = [{}, { since: q(0.5) }, { until: q(0.7) }, { since: q(0.2), until: q(0.8) }];
    const queries: FixtureLogQuery[] = [];
    for (const rev of revs) {
      for (const order of ["default", "topo"] as const) {
        for (const firstParent of [false, true]) {
          for (const path of paths) {
            for (const window of windows) {
              // Keep the matrix affordable: every path with no dates, every date window with no path or one file.
              if (path !== undefined && Object.keys(window).length && path !== "README.md" && path !== "src") continue;
              queries.push({ ...rev, order, firstParent, ...(path !== undefined ? { path } : {}), ...window });
            }
          }
        }
      }
    }
    // Pagination as Gitaly asks for it: --skip and --max-count.
    for (const [offset, limit] of [[0, 20], [20, 20], [40, 7], [250, 100], [1000, 20]]) {
      queries.push({ refName: "main", order: "default", offset, limit });
      queries.push({ refName: "main", order: "topo", offset, limit });
      queries.push({ all: true, order: "default", offset, limit });
      queries.push({ all: true, order: "topo", offset, limit, path: "src" });
      queries.push({ refName: "main", order: "default", offset, limit, path: "README.md", since: q(0.3) });
    }
    const cases = runLogs(dir, queries);

    // `git for-each-ref --contains` for a few commits, and `git ls-tree` listings.
    const containsRevs = ["main", "main~20", "wip", "v1.0^{commit}", "release~2", "topic/a~1", "site~3", "v0.9"];
    const contains: Record<string, string[]> = {};
    for (const rev of containsRevs) {
      const oid = git(dir, ["rev-parse", rev]).toString().trim();
      const out = git(dir, ["for-each-ref", "--format=%(refname)", "--contains", oid, "refs/heads", "refs/tags"]).toString().trim();
      contains[oid] = out ? out.split("\n") : [];
    }
    const lsTree: GitFixtures["lsTree"] = [];
    for (const [rev, path, recursive] of [["main", "", false], ["main", "", true], ["main", "src", false], ["main", "src", true], ["v1.0", "docs", false], ["main", "no/such", false]] as const) {
      const args = ["ls-tree", "-z", ...(recursive ? ["-r", "-t"] : []), rev, ...(path ? [`${path}/`] : [])];
      const entries = git(dir, args).toString().split("\0").filter(Boolean).map((line) => {
        const [meta, entryPath] = line.split("\t");
        const [mode, type, oid] = meta.split(" ");
        return { mode, type, oid, path: entryPath };
      });
      lsTree.push({ rev, path, recursive, entries });
    }

    return {
      contains,
      lsTree,
      objects: exportObjects(dir),
      refs,
      defaultBranch: "main",
      commitCount: history.commits,
      logCases: cases,
      numstat: numstats(dir),
      merges: mergeCases(root),
      ...compareCases(dir),
      gitVersion: git(dir, ["--version"]).toString().trim(),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
