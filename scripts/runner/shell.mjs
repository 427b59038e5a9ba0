// `RUNNER=shell npm start`: the shipped shell runner (runner.mjs) started beside the Worker on every
// start, as an instance runner whose `glrt-` token is kept in DATA_DIR/runner/token, its builds in
// DATA_DIR/runner/builds.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateToken, sha256Hex } from "../bootstrap.mjs";

/** Where the runner of `npm start` keeps its token and its builds. */
export function shellRunnerPaths(dataDir) {
  return { tokenFile: path.join(dataDir, "runner", "token"), buildsDir: path.join(dataDir, "runner", "builds") };
}

/**
 * Run by start.mjs while it still holds the database alone (before the Worker starts). The runner's
 * token: RUNNER_TOKEN (a registration or `glrt-` token); else the `glrt-` token an earlier start saved,
 * while its runner still exists; else none yet, and a credential to create one with once the Worker
 * answers: a personal access token of root for this start only (expiring in two days, revoked as soon as
 * the runner is created). So a runner is registered on any start, not only when root's own token is at
 * hand (the first start, or INITIAL_ROOT_TOKEN), and root's token is never used by the start itself
 * (start.mjs reports its first use). `db` is a pg Client or PGlite.
 * @returns {Promise<{ token: string | null, registrationToken?: string, replaced?: boolean }>}
 */
export async function prepareShellRunner(db, dataDir) {
  if (process.env.RUNNER_TOKEN) return { token: process.env.RUNNER_TOKEN };
  const { tokenFile } = shellRunnerPaths(dataDir);
  const saved = existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").trim() : "";
  if (saved) {
    const { rows } = await db.query(`SELECT 1 FROM ci_runners WHERE token_digest = $1`, [sha256Hex(saved)]);
    if (rows.length > 0) return { token: saved };
  }
  const registrationToken = generateToken();
  // The day after tomorrow in UTC, as the Worker compares (a token expires on its date): valid through
  // this start even near midnight.
  const expires = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  await db.query(
    `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes, expires_at)
     VALUES (1, 'npm start: shell runner registration', $1, $2, $3)`,
    [sha256Hex(registrationToken), ["api", "admin_mode"], expires],
  );
  // A saved token whose runner is gone (deleted in the API, or another database): replaced.
  return { token: null, registrationToken, replaced: Boolean(saved) };
}

/** POST /user/runners with the one-start token, which is then revoked whatever happened. */
async function registerRunner(baseUrl, registrationToken) {
  const headers = { "PRIVATE-TOKEN": registrationToken, "Content-Type": "application/json" };
  try {
    const res = await fetch(`${baseUrl}/api/v4/user/runners`, {
      method: "POST",
      headers,
      body: JSON.stringify({ runner_type: "instance_type", description: "npm start shell runner", run_untagged: true }),
    });
    if (res.status !== 201) throw new Error(`creating the shell runner answered ${res.status}: ${await res.text()}`);
    return await res.json();
  } finally {
    await fetch(`${baseUrl}/api/v4/personal_access_tokens/self`, { method: "DELETE", headers }).catch(() => undefined);
  }
}

/**
 * Registers the runner when prepareShellRunner found no token, then starts it as a child process (its
 * own process group: its jobs' shells stop with it). Returns `{ stop }`.
 */
export async function startShellRunner({ token, registrationToken, replaced, baseUrl, dataDir, log, isStopping }) {
  const { tokenFile, buildsDir } = shellRunnerPaths(dataDir);
  if (!token) {
    const runner = await registerRunner(baseUrl, registrationToken);
    token = runner.token;
    mkdirSync(path.dirname(tokenFile), { recursive: true });
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    chmodSync(tokenFile, 0o600);
    log(`shell runner registered: instance runner ${runner.id}${replaced ? ", replacing one that no longer exists" : ""} (token in ${tokenFile})`);
  }
  const script = fileURLToPath(new URL("./runner.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, "--url", baseUrl, "--builds-dir", buildsDir], {
    // The token through the environment, not argv (which other users of the machine can read).
    env: { ...process.env, RUNNER_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = (stream, out) =>
    stream.setEncoding("utf8").on("data", (chunk) => {
      for (const line of chunk.split("\n")) if (line) out.write(`[runner] ${line}\n`);
    });
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    if (!isStopping()) log(`shell runner exited (code ${code}, signal ${signal})`);
  });
  log(`shell runner started (builds in ${buildsDir})`);
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          resolve();
        }
      }),
  };
}
