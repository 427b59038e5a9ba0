// Builds a repository with the git CLI (`git fast-import`, so thousands of commits take seconds) for the
// smart HTTP end-to-end test and bench: a main line with topic branches merged back (and an octopus
// merge), renames, binary files (with NUL bytes), an executable, a symlink, files without a final
// newline, annotated and lightweight tags. Deterministic (seeded). Not a test file itself.
import { execFileSync } from "node:child_process";

export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
  TZ: "UTC",
};

export function git(cwd, args, input) {
  return execFileSync("git", ["-c", "gc.auto=0", "-c", "user.name=E2E", "-c", "user.email=e2e@example.com", ...args], {
    cwd,
    env: GIT_ENV,
    input,
    maxBuffer: 512 * 1024 * 1024,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), chance: (p) => next() < p };
}

/**
 * Writes `commits` commits into the (initialised, bare or not) repository at `dir` through fast-import.
 * Returns the branch and tag names it made.
 */
export function buildHistory(dir, { commits, seed = 7, binaryEvery = 9, largeBlob = false }) {
  const r = prng(seed);
  const chunks = [];
  const out = (text) => chunks.push(Buffer.isBuffer(text) ? text : Buffer.from(text));
  const data = (buffer) => {
    out(`data ${buffer.length}\n`);
    out(buffer);
    out("\n");
  };
  let mark = 0;
  let time = 1_600_000_000;
  const files = new Set();
  const text = (n) => {
    const lines = [];
    for (let i = 0; i < 3 + r.int(30); i++) lines.push(`line ${i} value ${r.int(1000)} of ${n}`);
    return lines.join("\n") + (r.chance(0.2) ? "" : "\n");
  };
  const binary = (size) => {
    const buffer = Buffer.alloc(size);
    for (let i = 0; i < size; i++) buffer[i] = r.chance(0.1) ? 0 : r.int(256);
    return buffer;
  };
  const commit = (ref, parents, changes, message) => {
    mark++;
    time += 60 + r.int(3600);
    out(`commit ${ref}\nmark :${mark}\n`);
    out(`author Dev ${mark % 5} <dev${mark % 5}@example.com> ${time} +0${r.int(9)}00\n`);
    out(`committer Dev ${mark % 3} <dev${mark % 3}@example.com> ${time + r.int(100)} -0${r.int(9)}30\n`);
    data(Buffer.from(message));
    if (parents[0]) out(`from :${parents[0]}\n`);
    for (const parent of parents.slice(1)) out(`merge :${parent}\n`);
    for (const change of changes) {
      if (change.op === "M") {
        out(`M ${change.mode ?? "100644"} inline ${change.path}\n`);
        data(change.content);
      } else if (change.op === "D") out(`D ${change.path}\n`);
      else if (change.op === "R") out(`R ${change.from} ${change.path}\n`);
    }
    out("\n");
    return mark;
  };

  const branches = [];
  const tags = [];
  let main = commit("refs/heads/main", [], [
    { op: "M", path: "README.md", content: Buffer.from("# history\n") },
    { op: "M", path: "bin/run.sh", mode: "100755", content: Buffer.from("#!/bin/sh\necho run\n") },
    { op: "M", path: "link", mode: "120000", content: Buffer.from("README.md") },
  ], "root commit\n");
  files.add("README.md");
  let made = 1;
  let fileCounter = 0;
  const edit = () => {
    const changes = [];
    const roll = r.next();
    const existing = [...files].filter((f) => f.startsWith("src/"));
    if (roll < 0.1 && existing.length > 3) {
      const from = existing[r.int(existing.length)];
      const to = `src/moved/${from.split("/").pop().replace(/\.\w+$/, "")}_${fileCounter++}.txt`;
      files.delete(from);
      files.add(to);
      changes.push({ op: "R", from, path: to });
    } else if (roll < 0.13 && existing.length > 5) {
      const path = existing[r.int(existing.length)];
      files.delete(path);
      changes.push({ op: "D", path });
    } else if (roll < 0.45 || existing.length < 4) {
      const path = `src/dir${r.int(6)}/file${fileCounter++}.txt`;
      files.add(path);
      changes.push({ op: "M", path, content: Buffer.from(text(fileCounter)) });
    } else {
      const path = existing[r.int(existing.length)];
      changes.push({ op: "M", path, content: Buffer.from(text(fileCounter++)) });
    }
    if (made % binaryEvery === 0) changes.push({ op: "M", path: `assets/blob${made % 7}.bin`, content: binary(500 + r.int(20_000)) });
    return changes;
  };

  while (made < commits) {
    if (made % 25 === 10 && made + 5 < commits) {
      // A topic branch of 2-4 commits, merged back with a merge commit (an octopus every third time).
      const name = `topic/t${made}`;
      let tip = main;
      const count = 2 + r.int(3);
      for (let i = 0; i < count && made < commits; i++, made++) tip = commit(`refs/heads/${name}`, [tip], [{ op: "M", path: `topics/${made}.txt`, content: Buffer.from(text(made)) }], `topic ${made}\n`);
      branches.push(name);
      const parents = [main, tip];
      if (branches.length % 3 === 0) {
        const other = commit(`refs/heads/${name}-b`, [main], [{ op: "M", path: `topics/${made}-b.txt`, content: Buffer.from("b\n") }], `side ${made}\n`);
        made++;
        branches.push(`${name}-b`);
        parents.push(other);
      }
      main = commit("refs/heads/main", parents, [{ op: "M", path: `topics/${made}-merged.txt`, content: Buffer.from(`merged ${made}\n`) }], `Merge ${name}\n`);
      made++;
      continue;
    }
    main = commit("refs/heads/main", [main], edit(), `change ${made}${r.chance(0.3) ? "\n\nwith a body line\n" : "\n"}`);
    made++;
    if (made % 50 === 0) {
      const name = `v${made / 50}`;
      out(`tag ${name}\nfrom :${main}\ntagger Rel <rel@example.com> ${time} +0000\n`);
      data(Buffer.from(`release ${name}\n`));
      tags.push(name);
    }
    if (made % 70 === 0) {
      out(`reset refs/tags/light${made}\nfrom :${main}\n\n`);
      tags.push(`light${made}`);
    }
  }
  if (largeBlob) {
    main = commit("refs/heads/main", [main], [{ op: "M", path: "assets/large.bin", content: binary(1_300_000) }], "a blob over 1 MiB\n");
  }
  git(dir, ["fast-import", "--quiet", "--done"], Buffer.concat([...chunks, Buffer.from("done\n")]));
  return { branches: ["main", ...branches], tags };
}
