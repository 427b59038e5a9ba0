// Every request gets an answer, against Edgeforge started as `npm start` does: 12
// clients, each on its own kept-alive connection as python-gitlab's requests keeps one, send full-body
// `PUT /projects/:id/issues/:iid` (labels, add_labels, remove_labels, assignee_ids, milestone_id,
// due_date, state_event, confidential, discussion_locked, …) and pause between requests for about 5 s,
// the idle time after which workerd closes a kept connection by itself. A client that sends as the
// server closes gets a reset or an empty reply with no status; before the Node front
// (scripts/worker-host.mjs) about one request in twenty was lost that way.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { apiCall, startServer } from "./server.mjs";

const ROOT_TOKEN = `glpat-alive${randomBytes(12).toString("hex")}`;
const CLIENTS = 12;
const ROUNDS = 8;
/** Pauses from 4,980 to 5,030 ms, spread over the clients and rounds: they straddle workerd's 5 s. */
const pause = (client, round) => 4980 + ((client * ROUNDS + round) * 50) / (CLIENTS * ROUNDS);

let dataDir;
let server;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-alive-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 180_000, verbose: Boolean(process.env.E2E_VERBOSE) });
});

after(async () => {
  await server?.stop(20_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One request on `agent`'s connection: `{ status }`, or `{ error }` when it ended without a status line. */
function put(agent, route, body) {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    const req = http.request(
      `${server.apiUrl}${route}`,
      { method: "PUT", agent, headers: { "PRIVATE-TOKEN": ROOT_TOKEN, "Content-Type": "application/json", "Content-Length": payload.length } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode }));
        res.on("error", (error) => resolve({ status: res.statusCode, error: error.message }));
      },
    );
    req.on("error", (error) => resolve({ error: `${error.code ?? ""} ${error.message}` }));
    req.end(payload);
  });
}

describe("kept-alive connections under 12 concurrent clients", () => {
  it("answers every full-body PUT of an issue with a status, whatever the pause between requests", { timeout: 300_000 }, async () => {
    const call = async (method, route, body) => {
      const { status, body: answer } = await apiCall(server.host, ROOT_TOKEN, method, route, body);
      assert.ok(status >= 200 && status < 300, `${method} ${route} → ${status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const project = await call("POST", "/projects", { name: `alive-${randomBytes(3).toString("hex")}` });
    const labels = [];
    for (let i = 0; i < 6; i++) labels.push((await call("POST", `/projects/${project.id}/labels`, { name: `label-${i}`, color: "#FF0000" })).name);
    const milestone = await call("POST", `/projects/${project.id}/milestones`, { title: "M1" });
    const me = await call("GET", "/user");
    const issues = [];
    for (let i = 0; i < CLIENTS; i++) issues.push((await call("POST", `/projects/${project.id}/issues`, { title: `Issue ${i}` })).iid);

    const outcomes = [];
    await Promise.all(
      issues.map(async (iid, client) => {
        // One connection per client, reused for as long as the server keeps it (as urllib3's pool does).
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let round = 0; round < ROUNDS; round++) {
            const some = (n) => labels.filter((_, j) => (j + round + client) % n === 0);
            const body = {
              title: `Round ${round} of client ${client}`,
              description: "A description. ".repeat(20),
              labels: some(2).join(","),
              add_labels: some(3).join(","),
              remove_labels: some(5).join(","),
              assignee_ids: [me.id],
              milestone_id: milestone.id,
              due_date: "2030-01-01",
              state_event: round % 2 ? "close" : "reopen",
              confidential: round % 2 === 0,
              discussion_locked: round % 3 === 0,
              weight: 3,
              issue_type: "issue",
            };
            outcomes.push({ client, round, ...(await put(agent, `/projects/${project.id}/issues/${iid}`, body)) });
            await new Promise((resolve) => setTimeout(resolve, pause(client, round)));
          }
        } finally {
          agent.destroy();
        }
      }),
    );
    const unanswered = outcomes.filter((o) => o.status === undefined || o.error);
    assert.deepEqual(unanswered, [], `${unanswered.length} of ${outcomes.length} requests ended without a status`);
    assert.deepEqual([...new Set(outcomes.map((o) => o.status))], [200]);
    assert.equal(outcomes.length, CLIENTS * ROUNDS);
  });
});
