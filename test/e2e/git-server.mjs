// What the end-to-end tests that drive the git CLI share (git_http, lfs, protected_branches, ci): Edgeforge
// started as `npm start` does in a throwaway directory, an API caller with the root token, users with a
// personal access token, `http://anyone:<token>@host/<path>.git` remotes, and git run with no global or
// system configuration. Not a test file itself (node --test only picks up `*.test.mjs`).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GIT_ENV } from "./git-history.mjs";
import { startServer } from "./server.mjs";

/**
 * @param {string} label  prefix of the run's names (users, projects) and of the temporary directory
 * @param {{ timeoutMs?: number, gitConfig?: string[], env?: Record<string, string | undefined> }} options
 *   gitConfig: `-c` arguments every git call gets (LFS filters…); env: added to git's environment.
 */
export function gitServer(label, { timeoutMs = 180_000, gitConfig = [], env = {} } = {}) {
  const rootToken = `glpat-${label}${randomBytes(12).toString("hex")}`;
  const run = `${label}${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const gitEnv = { ...GIT_ENV, ...env };
  for (const [key, value] of Object.entries(gitEnv)) if (value === undefined) delete gitEnv[key];

  const g = {
    rootToken,
    /** Unique per run: prefixes user names and project names. */
    run,
    /** The temporary directory (the server's data under `server/`); set by start(). */
    dataDir: "",
    /** startServer's handle (`host`, `apiUrl`, `output()`); set by start(). */
    server: null,

    async start() {
      g.dataDir = await mkdtemp(path.join(os.tmpdir(), `edgeforge-${label}-e2e-`));
      g.server = await startServer({
        dataDir: path.join(g.dataDir, "server"),
        rootToken,
        databaseUrl: process.env.E2E_DATABASE_URL || undefined,
        // The first bundle can be slow on a loaded machine.
        timeoutMs,
        verbose: Boolean(process.env.E2E_VERBOSE),
      });
      return g;
    },

    async stop() {
      if (g.server) await g.server.stop(10_000);
      if (g.dataDir) await rm(g.dataDir, { recursive: true, force: true });
    },

    /** `{ status, body }` of an API call (JSON bodies parsed, others as text); never throws on a status. */
    async call(method, endpoint, body, token = rootToken, retried = false) {
      let response;
      try {
        response = await fetch(`${g.server.apiUrl}${endpoint}`, {
          method,
          headers: { "PRIVATE-TOKEN": token, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        // A keep-alive connection the dev server closed while git ran: one retry of a read.
        if (method !== "GET" || retried) throw error;
        return g.call(method, endpoint, body, token, true);
      }
      const text = await response.text();
      const json = response.headers.get("content-type")?.includes("json");
      return { status: response.status, body: json && text ? JSON.parse(text) : json ? null : text };
    },

    /** The body of a successful API call; throws with the answer otherwise. */
    async api(method, endpoint, body, token = rootToken) {
      const { status, body: answer } = await g.call(method, endpoint, body, token);
      if (status < 200 || status > 299) throw new Error(`${method} ${endpoint} → ${status} ${JSON.stringify(answer)}`);
      return answer;
    },

    /** `http://anyone:<token>@host/<path>.git` (no token: anonymous). */
    remote(fullPath, token) {
      const url = new URL(`${g.server.host}/${fullPath}.git`);
      if (token) {
        url.username = "anyone";
        url.password = token;
      }
      return url.toString();
    },

    /** Runs git; `{ status, stdout, stderr }` without throwing. */
    gitTry(cwd, args) {
      const result = spawnSync("git", ["-c", "gc.auto=0", "-c", "user.name=E2E", "-c", "user.email=e2e@example.com", "-c", "credential.helper=", ...gitConfig, ...args], {
        cwd,
        env: gitEnv,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        // A hung request fails its step instead of blocking the runner.
        timeout: 180_000,
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },

    /** Runs git and asserts it succeeded; its stdout. */
    gitOk(cwd, args) {
      const result = g.gitTry(cwd, args);
      assert.equal(result.status, 0, `git ${args.join(" ")} failed:\n${result.stderr}`);
      return result.stdout;
    },

    /** A user made by root (`<run>_<label>`) with an `api` personal access token as `token`. */
    async newUser(userLabel) {
      const user = await g.api("POST", "/users", {
        email: `${run}_${userLabel}@example.com`,
        username: `${run}_${userLabel}`,
        name: `${run} ${userLabel}`,
        password: "Edgeforge-e2e-Pass-5521",
        skip_confirmation: true,
      });
      const { token } = await g.api("POST", `/users/${user.id}/personal_access_tokens`, { name: "e2e", scopes: ["api"] });
      return { ...user, token };
    },
  };
  return g;
}
