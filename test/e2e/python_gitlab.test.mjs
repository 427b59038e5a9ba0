// End to end with python-gitlab (Debian's python3-gitlab, run by Debian's pytest): starts Edgeforge as
// `npm start` does (its own port and data folder; embedded PGlite unless E2E_DATABASE_URL is set) and
// runs the pytest files in test/python/ against it, with EDGEFORGE_URL and EDGEFORGE_TOKEN (root's
// personal access token) in their environment. Fails with pytest's output when a test fails, is skipped,
// or pytest is missing (.ci/run installs python3-gitlab and python3-pytest).
// PYTEST_ARGS adds arguments (`-k merge`, `-x`); E2E_VERBOSE=1 shows the server's own output.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-py${randomBytes(12).toString("hex")}`;
const root = fileURLToPath(new URL("../..", import.meta.url));
/** Debian's interpreter: python3-gitlab and python3-pytest are installed for it, not for a pyenv one. */
const PYTHON = "/usr/bin/python3";

let dataDir;
let server;

/** Runs `python3 args` in the repository root; resolves with the exit code and the combined output. */
function python(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, output }));
  });
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-py-"));
  server = await startServer({
    dataDir,
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    timeoutMs: 90_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
  });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("Edgeforge through python-gitlab", { timeout: 600_000 }, () => {
  it("python-gitlab and pytest are installed", async () => {
    const { code, output } = await python(["-c", "import gitlab, pytest; print(gitlab.__version__)"], process.env);
    assert.equal(code, 0, `${PYTHON} cannot import gitlab and pytest (apt-get install python3-gitlab python3-pytest):\n${output}`);
  });

  it("passes test/python/ with no test skipped", { timeout: 540_000 }, async () => {
    const env = {
      ...process.env,
      EDGEFORGE_URL: server.host,
      EDGEFORGE_TOKEN: ROOT_TOKEN,
      // No byte-code files in the worktree, no pytest cache, no user site-packages of the machine.
      PYTHONDONTWRITEBYTECODE: "1",
      PYTHONNOUSERSITE: "1",
      PYTHONPATH: "",
    };
    // python-gitlab reads no configuration file when given a URL and a token; nothing else is inherited.
    delete env.PYTHONSTARTUP;
    const extra = process.env.PYTEST_ARGS ? process.env.PYTEST_ARGS.split(/\s+/).filter(Boolean) : [];
    const args = ["-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", "--tb=short", "test/python/", ...extra];
    const { code, signal, output } = await python(args, env);
    assert.equal(code, 0, `pytest exited with ${code ?? signal}:\n${output}`);
    // Skip-free: a skipped or xfailed test here is a test that does not run in CI.
    const summary = output.trim().split("\n").at(-1) ?? "";
    assert.doesNotMatch(summary, /skipped|xfail|xpass|deselected/, `pytest skipped tests:\n${output}`);
    assert.match(summary, /\d+ passed/, output);
  });
});
