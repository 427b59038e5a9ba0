// Node side of the pack codec tests: packs made by the git CLI (`git pack-objects`, with OFS_DELTA,
// with REF_DELTA, and a thin pack whose bases are outside it) and every object git holds, so the
// workerd tests can check that our reader and resolver give exactly git's objects and ids.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PackFixtures } from "./pack-fixture-types";


const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C", TZ: "UTC" };

export function packFixtures(): PackFixtures {
  const dir = mkdtempSync(join(tmpdir(), "edgeforge-pack-"));
  const git = (args: string[], input?: string | Buffer) =>
    execFileSync("git", args, { cwd: dir, env: ENV, input, maxBuffer: 64 * 1024 * 1024 });
  try {
    git(["init", "-q", "-b", "main"]);
    git(["config", "user.name", "Pack Fixture"]);
    git(["config", "user.email", "pack@example.com"]);
    // Files that change a little per commit, so pack-objects finds deltas; a binary file too.
    let text = Array.from({ length: 300 }, (_, i) => `line ${i} of a file that keeps most of its content between commits\n`).join("");
    let binary = Buffer.alloc(20_000);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 251;
    for (let n = 0; n < 12; n++) {
      text = text.replace(`line ${n * 10} `, `line ${n * 10} (edited in ${n}) `) + `appended ${n}\n`;
      binary = Buffer.concat([binary.subarray(0, 5000), Buffer.from(`chunk${n}`), binary.subarray(5000)]);
      writeFileSync(join(dir, "big.txt"), text);
      writeFileSync(join(dir, "data.bin"), binary);
      writeFileSync(join(dir, `file${n % 3}.txt`), `version ${n}\n${text.slice(0, 2000)}`);
      git(["add", "-A"]);
      git(["commit", "-q", "-m", `commit ${n}`]);
      if (n === 6) git(["tag", "-a", "v1", "-m", "annotated tag"]);
    }
    const pack = (args: string[], revs: string) => git(["pack-objects", "--stdout", "-q", ...args], revs).toString("base64");
    const all = git(["rev-list", "--objects", "--all"]).toString();
    const ids = all.split("\n").filter(Boolean).map((line) => line.slice(0, 40));
    const ofsPack = pack(["--delta-base-offset"], ids.join("\n") + "\n");
    const refPack = pack([], ids.join("\n") + "\n");
    const thinPack = pack(["--revs", "--thin", "--delta-base-offset"], "HEAD\n^HEAD~4\n");
    const thinOids = git(["rev-list", "--objects", "HEAD", "^HEAD~4"]).toString().split("\n").filter(Boolean).map((l) => l.slice(0, 40));

    const batch = git(["cat-file", "--batch-all-objects", "--batch"]);
    const objects: PackFixtures["objects"] = [];
    let at = 0;
    while (at < batch.length) {
      const nl = batch.indexOf(10, at);
      const [oid, type, size] = batch.subarray(at, nl).toString().split(" ");
      const body = batch.subarray(nl + 1, nl + 1 + Number(size));
      objects.push({ oid, type, body: body.toString("base64") });
      at = nl + 1 + Number(size) + 1;
    }
    return { objects, ofsPack, refPack, thinPack, thinOids };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
