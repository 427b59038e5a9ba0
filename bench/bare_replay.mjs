#!/usr/bin/env node
// The baseline of `npm run bench:writes`: a bare Node `http` server with a `pg` pool that runs, for each
// request, the SAME SQL statements the Worker ran for the same request: the statements, their parameters
// and their order as PostgreSQL logged them (log_statement = all) while Edgeforge served the request,
// replayed on a copy of the database taken before (CREATE DATABASE … TEMPLATE), in the same order, so that
// every statement finds the rows it found then (the same ids, iids and ref targets). bench/writes.mjs
// records the trace and sends the requests; this server only runs them.
//
// As bench/bare.mjs with BARE_NAMED=1 (`bare-named`): a statement the Worker ran as a named prepared
// statement (`execute ef_…`) is named here too (its backend plans it once), an unnamed one is unnamed, and
// a simple-protocol query (`begin; select txid_current()`) is a simple query; parameters are sent as text,
// as the Worker's driver sends them. A statement that failed for the Worker fails here too (the trace
// keeps it) and the replay goes on, as the Worker's transaction did (its ROLLBACK is in the trace).
// The answer is a small JSON object, not GitLab's entity: the baseline is the database's work, with the
// runtime's least (HTTP, the request body read, one pooled connection).
//
// Env: BARE_PORT, BARE_DATABASE_URL, BARE_TRACE (a JSON file: an array of requests, each an array of
// `{ kind: "simple" | "unnamed" | "named", name?, text, params? }`), BARE_POOL_MAX (1: the trace must run in
// its recorded order). A request names its trace entry with the header `X-Replay: <index>`.
import { readFileSync } from "node:fs";
import http from "node:http";
import pg from "pg";

const port = Number(process.env.BARE_PORT);
const trace = JSON.parse(readFileSync(process.env.BARE_TRACE, "utf8"));
const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: Number(process.env.BARE_POOL_MAX || 1) });

let failures = 0;

async function replay(client, statements) {
  for (const s of statements) {
    try {
      if (s.kind === "simple") await client.query(s.text);
      else if (s.kind === "named") await client.query({ name: s.name, text: s.text, values: s.params, rowMode: "array" });
      else await client.query({ text: s.text, values: s.params, rowMode: "array" });
    } catch {
      // The Worker's statement failed too (or the replay diverged: counted, and reported by /stats).
      failures += 1;
    }
  }
}

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks).toString("utf8");
  if (req.url === "/stats") {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ failures }));
    return;
  }
  const index = Number(req.headers["x-replay"]);
  const statements = trace[index];
  if (!statements) {
    res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ message: "404 Not Found" }));
    return;
  }
  if (body) JSON.parse(body);
  const client = await pool.connect();
  try {
    await replay(client, statements);
  } finally {
    client.release();
  }
  res.writeHead(201, { "Content-Type": "application/json", "X-Query-Count": String(statements.length) }).end(JSON.stringify({ replayed: index, statements: statements.length }));
});

async function stop() {
  server.close();
  server.closeAllConnections();
  await pool.end();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

server.listen(port, "127.0.0.1", () => console.log(`BARE: http://127.0.0.1:${port}`));
