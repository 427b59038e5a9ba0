import { Pool, neonConfig } from "@neondatabase/serverless";
import { Column, SQL, Subquery, getTableColumns, getTableName, is, sql, type Logger, type Table } from "drizzle-orm";
import { NeonDatabase, NeonDriver, NeonSession, NeonTransaction } from "drizzle-orm/neon-serverless";
import { PgDialect } from "drizzle-orm/pg-core";
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Bindings } from "./env";
import { tcpWebSocketConstructor } from "./tcp_socket";

// The types live in ./db_types.ts, which env.ts can name without importing this module back.
export type { Database, Executor, Transaction } from "./db_types";
import type { Database, Executor, Transaction } from "./db_types";

let configuredProxy: string | undefined;

/** neonConfig is global to the isolate: set once, from the first env seen (docs/database.md, "Connections in the Worker"). */
function configureNeon(env: Bindings) {
  if (!env.WS_PROXY || configuredProxy === env.WS_PROXY) return;
  const proxy = env.WS_PROXY;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  // The local proxy answers a trusted session's start-up itself, so the driver may send its start-up,
  // a (discarded) password message and the first statement in one go instead of waiting a round trip
  // for ReadyForQuery: Neon's own "pipelined connect". A URL with a password may reach a server that
  // asks for SCRAM, which the proxy pipes through unanswered: no pipelining there.
  neonConfig.pipelineConnect = env.DATABASE_URL && !new URL(env.DATABASE_URL).password ? "password" : false;
  // The driver coalesces the messages of a statement into one WebSocket frame with setTimeout(0); on the
  // loopback proxy that timer costs more than the frames it saves (measured: GET /projects/:id, four
  // statements, p50 80-125 ms → 33 ms at load 20). Production (Neon over the network) keeps the default.
  neonConfig.coalesceWrites = false;
  // PG_TCP_PROXY: the same proxy's raw TCP port; the driver's "WebSocket" is then a plain socket
  // (kernel/tcp_socket.ts says why). Only ever a loopback proxy: production leaves it unset.
  if (env.PG_TCP_PROXY) neonConfig.webSocketConstructor = tcpWebSocketConstructor(env.PG_TCP_PROXY) as unknown as typeof WebSocket;
  configuredProxy = proxy;
}

/**
 * How long a request waits for its database session before it answers 503: a database that cannot be
 * reached must not hang requests (locally the proxy refuses at once or after 1.5 s; this bounds the rest).
 */
const CONNECT_TIMEOUT_MS = 1800;

/** `DB_CONNECT_TIMEOUT_MS` overrides it: the vitest suite, on a loaded 2-core machine, waits longer. */
function connectTimeout(env: Bindings): number {
  const ms = Number(env.DB_CONNECT_TIMEOUT_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : CONNECT_TIMEOUT_MS;
}

/**
 * What every request's Drizzle handle shares, built once per isolate: the dialect (with its casing cache).
 *
 * No relational schema is given to the handle: no code uses Drizzle's relational API (`db.query.<table>`),
 * and with a schema every handle (each request, each transaction) builds a query builder per table of
 * the schema (121) in its constructor: about 1% of the isolate's CPU on `GET /projects/:id`, and
 * allocations for the collector. `drizzle({ client, schema })` also rebuilt the relational configuration
 * itself on each call (1 to 3 ms of CPU per request). `Database` keeps the schema's type for the
 * query builders' typing only.
 */
let dialect: PgDialect | undefined;

/** drizzle-orm/neon-serverless `drizzle({ client, casing, logger })`, with the dialect reused. */
function drizzleOn(pool: Pool, logger: Logger | undefined): Database {
  dialect ??= new PgDialect({ casing: "snake_case" });
  const session = new NeonDriver(pool, dialect, { logger }).createSession(undefined);
  const db = new NeonDatabase(dialect, session, undefined) as unknown as Database;
  Object.assign(db, { $client: pool });
  return db;
}

/** SQLSTATEs after which Postgres asks the client to try again: deadlock_detected, serialization_failure. */
const RETRYABLE_CODES = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;

function isRetryable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && RETRYABLE_CODES.has(code)) return true;
  }
  return false;
}

/** Runs `run`, and again (up to ATTEMPTS in all) after a retryable abort; `onRetry` counts each run again. */
async function retrying<T>(run: () => Promise<T>, onRetry?: () => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
      onRetry?.();
    }
  }
}

type TransactionConfig = { isolationLevel?: string; accessMode?: string; deferrable?: boolean };

/** `begin` with Drizzle's transaction options (PgTransaction#getTransactionConfigSQL, which is internal). */
function beginSql(config: TransactionConfig | undefined): string {
  const parts = ["begin"];
  if (config?.isolationLevel) parts.push(`isolation level ${config.isolationLevel}`);
  if (config?.accessMode) parts.push(config.accessMode);
  if (typeof config?.deferrable === "boolean") parts.push(config.deferrable ? "deferrable" : "not deferrable");
  return parts.join(" ");
}

/** How long a request waits for the database to come back to learn whether its COMMIT took effect. */
const OUTCOME_DEADLINE_MS = 20_000;
const OUTCOME_RETRY_MS = 250;

/**
 * Whether transaction `xid` committed, asked on a fresh session (`txid_status`): true when it did, false
 * when it provably did not (aborted, or rolled back by a crash), null when the database did not say
 * within OUTCOME_DEADLINE_MS ("in progress" while its backend finishes, or the database still down).
 */
async function committedOutcome(env: Bindings, xid: string): Promise<boolean | null> {
  const deadline = Date.now() + OUTCOME_DEADLINE_MS;
  for (;;) {
    const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1, connectionTimeoutMillis: connectTimeout(env) });
    pool.on("error", () => {});
    try {
      const { rows } = await pool.query("select txid_status($1::bigint) as status", [xid]);
      const status = (rows[0] as { status: string | null } | undefined)?.status ?? null;
      if (status === "committed") return true;
      if (status === "aborted") return false;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
    } finally {
      await pool.end().catch(() => {});
    }
    if (Date.now() + OUTCOME_RETRY_MS > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, OUTCOME_RETRY_MS));
  }
}

/**
 * Drizzle's NeonSession#transaction (begin, the callback, commit; rollback on a throw), except that a
 * COMMIT whose answer is lost is not reported as a failure when it took effect. Why: a session that
 * drops after Postgres received COMMIT (a restart terminates the backend as it commits, a proxy or
 * network cut) leaves the outcome unknown, and answering an error for a write that exists made clients
 * retry it (seen: 3 of 2,273 writes across three Postgres restarts under load were committed but
 * answered 503). So `begin` also reads the transaction's id (`txid_current()`, in the same round trip:
 * one simple-protocol query of two statements), and after a connection-level failure of COMMIT the id's
 * status is read on a fresh session: committed → the callback's result; aborted → the error. When the
 * database does not come back within OUTCOME_DEADLINE_MS the error stands (503): the outcome is
 * unknown, as GitLab's own answer is then. A write outside a transaction gets the same treatment
 * (`writeWithKnownOutcome`).
 */
async function transactionWithKnownOutcome<T>(
  env: Bindings,
  pool: Pool,
  logger: Logger | undefined,
  fn: (tx: Transaction) => Promise<T>,
  config: TransactionConfig | undefined,
): Promise<T> {
  const client = await pool.connect();
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error);
  };
  try {
    dialect ??= new PgDialect({ casing: "snake_case" });
    const session = new NeonSession(client, dialect, undefined, { logger });
    const tx = new NeonTransaction(dialect, session, undefined) as unknown as Transaction;
    const begun = (await tx.execute(sql.raw(`${beginSql(config)}; select txid_current()::text as xid`))) as unknown;
    const results = (Array.isArray(begun) ? begun : [begun]) as { rows?: { xid?: string }[] }[];
    const xid = results[results.length - 1]?.rows?.[0]?.xid ?? null;
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      // As Drizzle, but the callback's error is the one reported (a rollback on a dropped session fails too).
      try {
        await tx.execute(sql`rollback`);
      } catch (rollbackError) {
        release(rollbackError as Error);
      }
      throw error;
    }
    try {
      await tx.execute(sql`commit`);
    } catch (error) {
      // Postgres answered (a serialization failure, a deferred constraint): the transaction did not commit.
      if (!xid || !isDatabaseUnavailable(error)) throw error;
      release(error as Error);
      if ((await committedOutcome(env, xid)) === true) return result;
      throw error;
    }
    return result;
  } finally {
    release();
  }
}

/**
 * Whether a statement run outside a transaction may write: INSERT, UPDATE, DELETE or MERGE, or a WITH
 * whose text holds one (a data-modifying CTE). A `SELECT … FOR UPDATE` behind a WITH is taken as one too,
 * which costs nothing but the pipelined BEGIN/COMMIT below.
 */
const WRITE_STATEMENT = /^\s*(insert|update|delete|merge)\b|^\s*with\b[\s\S]*\b(insert\s+into|update|delete\s+from)\b/i;

function statementText(config: unknown): string {
  if (typeof config === "string") return config;
  const text = (config as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : "";
}

/** What the driver's client exposes of its query queue (pg's Client, bundled by @neondatabase/serverless). */
type PgClient = {
  query(config: unknown, values?: unknown): unknown;
  readyForQuery: boolean;
  queryQueue: unknown[];
  activeQuery: unknown;
  release(error?: Error | boolean): void;
};
/** pg's Query, as the client drives it. */
type PgQuery = {
  name?: string;
  text?: string;
  callback?: (error: Error | null, result?: unknown) => void;
  submit(connection: PgConnection): Error | null;
  handleRowDescription(msg: unknown): void;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: PgConnection): void;
  handleEmptyQuery(connection: PgConnection): void;
  handlePortalSuspended(connection: PgConnection): void;
  handleCopyInResponse(connection: PgConnection): void;
  handleError(error: Error, connection: PgConnection): void;
  handleReadyForQuery(connection: PgConnection): void;
};
type PgConnection = { query(text: string): void };

type StatementOutcome = {
  xid: string | null;
  /** The statement's own answer arrived in full (its rows, or its error). */
  answered: boolean;
  result?: unknown;
  statementError?: Error;
  commitError?: Error;
  /** The session ended before the last answer: the outcome is not known from it. */
  lost?: Error;
};

/**
 * One statement in its own transaction, sent in one round trip: `begin; select txid_current()` (simple
 * protocol), the statement as the driver sends it (extended protocol, its own Sync), then `commit`, all
 * written before any answer is read. Postgres answers each in turn and flushes each answer at its
 * ReadyForQuery, so the transaction's id and the statement's rows reach the client before the COMMIT
 * runs, as they do in a transaction (`transactionWithKnownOutcome`). A failed statement turns the
 * COMMIT into a ROLLBACK. Driven as a pg "submittable": the client hands it every message; it stays the
 * client's active query until the last ReadyForQuery (the client would otherwise let go of it at the
 * first ReadyForQuery or error).
 */
class PipelinedStatement {
  private phase: 0 | 1 | 2 = 0;
  private xid: string | null = null;
  private answered = false;
  private result: unknown;
  private statementError?: Error;
  private commitError?: Error;
  private settled = false;
  private settle!: (outcome: StatementOutcome) => void;
  readonly done = new Promise<StatementOutcome>((resolve) => (this.settle = resolve));
  private readonly inner: PgQuery;

  constructor(
    private readonly client: PgClient,
    config: unknown,
    values: unknown,
  ) {
    // The driver's own Query for the statement (its parsing of rows and types), built by `client.query`
    // while the client is held busy so that it is queued, not sent; it is taken back from the queue.
    client.readyForQuery = false;
    (client.query(config, values) as Promise<unknown>).catch(() => {});
    this.inner = client.queryQueue.pop() as PgQuery;
    client.readyForQuery = true;
    this.inner.callback = (error, result) => {
      this.answered = true;
      if (error) this.statementError = error;
      else this.result = result;
    };
  }

  /** The client records a named statement's ParseComplete under the active query's name and text. */
  get name() {
    return this.phase === 1 ? this.inner.name : undefined;
  }
  get text() {
    return this.inner.text;
  }

  submit(connection: PgConnection): null {
    connection.query("begin; select txid_current()::text as xid");
    const refused = this.inner.submit(connection);
    if (refused) this.inner.callback?.(refused);
    connection.query("commit");
    return null;
  }

  /** Stays the client's active query: more answers of this round trip follow. */
  private hold() {
    this.client.activeQuery = this;
    this.client.readyForQuery = false;
  }

  private finish(lost?: Error) {
    if (this.settled) return;
    this.settled = true;
    const { xid, answered, result, statementError, commitError } = this;
    this.settle({ xid, answered, result, statementError, commitError, lost });
  }

  handleRowDescription(msg: unknown) {
    if (this.phase === 1) this.inner.handleRowDescription(msg);
  }
  handleDataRow(msg: { fields: (string | null)[] }) {
    if (this.phase === 0) this.xid = msg.fields[0] ?? null;
    else if (this.phase === 1) this.inner.handleDataRow(msg);
  }
  handleCommandComplete(msg: unknown, connection: PgConnection) {
    if (this.phase === 1) this.inner.handleCommandComplete(msg, connection);
  }
  handleEmptyQuery(connection: PgConnection) {
    if (this.phase === 1) this.inner.handleEmptyQuery(connection);
  }
  handlePortalSuspended(connection: PgConnection) {
    if (this.phase === 1) this.inner.handlePortalSuspended(connection);
  }
  handleCopyInResponse(connection: PgConnection) {
    this.inner.handleCopyInResponse(connection);
  }
  handleCopyData() {}

  handleError(error: Error, connection: PgConnection) {
    if (this.settled) return;
    const severity = (error as { severity?: unknown }).severity;
    // FATAL or PANIC, or no ErrorResponse at all (the socket closed): the session is gone.
    if (typeof severity !== "string" || severity === "FATAL" || severity === "PANIC") return this.finish(error);
    if (this.phase === 1) this.inner.handleError(error, connection);
    else if (this.phase === 2) this.commitError = error;
    // An error in phase 0 (BEGIN itself) leaves the statement in autocommit: its own answer says it all.
    this.hold();
  }

  handleReadyForQuery(connection: PgConnection) {
    if (this.phase === 0) {
      this.phase = 1;
      this.hold();
    } else if (this.phase === 1) {
      if (!this.answered) this.inner.handleReadyForQuery(connection);
      this.phase = 2;
      this.hold();
    } else {
      this.finish();
    }
  }
}

/**
 * A write outside a transaction whose answer may be lost must not be reported as failed when it took
 * effect (as a Postgres restart under load did). It runs as `PipelinedStatement` (no round trip more
 * than the statement alone); when the session drops after the statement's answer arrived, the
 * transaction's status is read on a fresh session (`committedOutcome`), as after a lost COMMIT.
 * When the session dropped before the statement's own answer arrived, the error stands: Postgres sends
 * that answer before it reads the COMMIT, so only a cut that lost bytes already sent (a network or
 * proxy cut, not a restart) could have committed such a write.
 */
async function writeWithKnownOutcome(env: Bindings, pool: Pool, config: unknown, values: unknown): Promise<unknown> {
  const client = (await pool.connect()) as unknown as PgClient;
  let broken: Error | undefined;
  try {
    const statement = new PipelinedStatement(client, config, values);
    client.query(statement);
    const outcome = await statement.done;
    if (outcome.lost) {
      broken = outcome.lost;
      if (outcome.statementError) throw outcome.statementError;
      if (!outcome.answered || !outcome.xid || !isDatabaseUnavailable(outcome.lost)) throw outcome.lost;
      if ((await committedOutcome(env, outcome.xid)) === true) return outcome.result;
      throw outcome.lost;
    }
    if (outcome.statementError) throw outcome.statementError;
    if (outcome.commitError) throw outcome.commitError;
    return outcome.result;
  } finally {
    client.release(broken ?? undefined);
  }
}

/**
 * A read (a statement that writes nothing) after this request's write committed: when its session drops,
 * it runs again on a fresh one once the database answers, for up to OUTCOME_DEADLINE_MS. Why: the write
 * exists, so answering 503 because the read that presents it failed (a label committed, then the SELECT
 * of its response lost its session to a PostgreSQL restart) tells the client a write that happened did not. A read is safe to run again. Before any write, a lost session is the 503 at once.
 */
async function readAfterWrite<T>(run: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + OUTCOME_DEADLINE_MS;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + OUTCOME_RETRY_MS > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, OUTCOME_RETRY_MS));
    }
  }
}

/**
 * A fresh pool (max 1 connection) and its Drizzle handle; `onQuery` counts statements, `onRetry` the runs
 * again below (the benches read both per request: X-Query-Count, X-Retry-Count).
 *
 * A statement outside a transaction, and a whole transaction, that Postgres aborts as a deadlock or a
 * serialization failure runs again (up to 3 times): Postgres rolled it back, and two requests that lock
 * the same rows in different orders (an issue deleted while one of its award emoji is) are not the
 * input's fault. Seen by the fuzz's discovery pass as 500s (40P01) on concurrent deletes. Differs from
 * GitLab, which answers 500 to ActiveRecord::Deadlocked.
 */
export function createDb(env: Bindings, onQuery?: () => void, onRetry?: () => void) {
  configureNeon(env);
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1, connectionTimeoutMillis: connectTimeout(env) });
  // A session that drops while idle emits 'error' on the pool; the next query reports it instead.
  pool.on("error", () => {});
  // Statements outside transactions go through `pool.query`; a transaction takes its own client.
  // A write among them runs as its own pipelined transaction so that a lost answer has a knowable outcome.
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  // Once a write of this handle has committed, a read that loses its session waits for the database and
  // runs again (`readAfterWrite`): the request must not answer an error for a write that exists.
  let committed = false;
  const run = async (args: unknown[]) => {
    if (args.length <= 2 && WRITE_STATEMENT.test(statementText(args[0]))) {
      const result = await writeWithKnownOutcome(env, pool, args[0], args[1]);
      committed = true;
      return result;
    }
    return committed ? readAfterWrite(() => query(...args)) : query(...args);
  };
  pool.query = ((...args: unknown[]) => retrying(() => run(args), onRetry)) as typeof pool.query;
  const logger = onQuery ? { logQuery: () => onQuery() } : undefined;
  const db = drizzleOn(pool, logger);
  db.transaction = ((fn: (tx: Transaction) => Promise<unknown>, config?: TransactionConfig) =>
    retrying(async () => {
      const result = await transactionWithKnownOutcome(env, pool, logger, fn, config);
      committed = true;
      return result;
    }, onRetry)) as typeof db.transaction;
  return { db, pool };
}

/** What `prepare()` gives for a select, update or relational query: `execute` with the placeholders' values. */
type PreparedStatement<R> = { execute(values?: Record<string, unknown>): Promise<R> };
/** Drizzle's internal `_prepare(name?)`: like `prepare(name)`, but without a server-side statement name. */
type Preparable<R> = { prepare(name: string): PreparedStatement<R> };

/**
 * A query whose SQL text is built once per isolate and then run on each request's own connection.
 *
 * Why: building SQL is most of the Worker's CPU per request. Drizzle turns every column and fragment of
 * a query into text on each call (profiled on `GET /projects/:id`: about 45% of the isolate's CPU,
 * most of it in `is()` walking prototype chains), and the hot queries select 40 to 90 columns.
 * Drizzle's own remedy is the prepared query: `build` writes the query once with `sql.placeholder(name)`
 * where values go, and each call fills the placeholders. The prepared query is bound to the connection
 * it was built on, so each call runs a view of it (`Object.create`) with the caller's own client and
 * logger (the statement counter): nothing request-scoped is shared, and the connection-per-request rule
 * (a Worker may not reuse another request's I/O) holds.
 *
 * The statement is also named on the server (protocol-level, not SQL `PREPARE`), by a hash of its text:
 * planning the project row's joins and subqueries took Postgres about 6 ms per request, ten times its
 * execution. A named statement keeps its plan in the backend that parsed it (a generic plan after five
 * runs, Postgres's `plan_cache_mode = auto`), and the pooler keeps it across sessions: Neon's pooled
 * endpoint (PgBouncer with `max_prepared_statements`) and the local proxy (scripts/ws-proxy.mjs) both
 * track which backend holds which name and parse it again where it is missing. The name is the text's
 * hash, never a counter, so two isolates never give one name to two texts.
 */
export function preparedQuery<V extends Record<string, unknown>, R>(build: (db: Executor) => Preparable<R>) {
  let template: PreparedStatement<R> | undefined;
  return async (db: Executor, values: V): Promise<R> => {
    if (!template) {
      const built = (build(db) as unknown as { _prepare(): PreparedStatement<R> })._prepare();
      // The first caller's connection is not kept: every call brings its own.
      Object.assign(built, { client: undefined, logger: undefined });
      await nameStatement(built);
      compileResultMapper(built);
      template = built;
    }
    const { session } = db as unknown as { session: { client: unknown; logger: unknown } };
    const bound: PreparedStatement<R> = Object.create(template, {
      client: { value: session.client },
      logger: { value: session.logger },
    });
    return bound.execute(values);
  };
}

type SelectedField = { path: string[]; field: unknown };
type Decoder = { mapFromDriverValue(value: unknown): unknown };

/**
 * Gives a prepared select its own row mapper, the same rows Drizzle's `mapResultRow` builds, with the work
 * that does not depend on the row done once. Why: `mapResultRow` decides each column's decoder with `is()`
 * (a prototype walk) and walks its path with an iterator on every row; for the project list (20 rows of
 * about 230 columns) that was a fifth of the isolate's CPU per request. Same semantics: nested objects
 * by path, NULL stays null, and a left-joined table whose first column is NULL becomes null.
 */
function compileResultMapper(built: unknown) {
  const query = built as {
    fields?: SelectedField[];
    joinsNotNullableMap?: Record<string, boolean>;
    customResultMapper?: (rows: unknown[][]) => unknown;
  };
  if (!query.fields || query.customResultMapper) return; // raw SQL, or a relational query's own mapper
  const joins = query.joinsNotNullableMap;
  // SQL's `decoder` is internal to Drizzle: read as `mapResultRow` reads it.
  const decoderOf = (sqlChunk: unknown) => (sqlChunk as { decoder: Decoder }).decoder;
  const columns = query.fields.map(({ path, field }) => {
    let decoder: Decoder;
    if (is(field, Column)) decoder = field;
    else if (is(field, SQL)) decoder = decoderOf(field);
    else if (is(field, Subquery)) decoder = decoderOf(field._.sql);
    else decoder = decoderOf((field as SQL.Aliased).sql);
    // `mapResultRow`'s null-join rule looks at table columns two levels deep.
    const table = joins && is(field, Column) && path.length === 2 ? getTableName(field.table) : null;
    return { parents: path.slice(0, -1), key: path[path.length - 1], decoder, table };
  });
  const mapRow = (row: unknown[]) => {
    const result: Record<string, unknown> = {};
    const nullify: Record<string, string | false> = {};
    for (let i = 0; i < columns.length; i++) {
      const { parents, key, decoder, table } = columns[i];
      let node = result;
      for (const part of parents) node = (node[part] ??= {}) as Record<string, unknown>;
      const raw = row[i];
      const value = (node[key] = raw === null ? null : decoder.mapFromDriverValue(raw));
      if (table !== null) {
        const object = parents[0];
        if (!(object in nullify)) nullify[object] = value === null ? table : false;
        else if (typeof nullify[object] === "string" && nullify[object] !== table) nullify[object] = false;
      }
    }
    for (const object in nullify) {
      const table = nullify[object];
      if (typeof table === "string" && !joins?.[table]) result[object] = null;
    }
    return result;
  };
  query.customResultMapper = (rows) => rows.map(mapRow);
}

/**
 * A table's row as Drizzle's `select()` returns it, from the columns of a raw statement that selected or
 * returned the table's columns under their own names (`RETURNING *`, `SELECT t.*`): each column decoded
 * by its Drizzle type. Null when the row has no `id` (a LEFT JOIN that found nothing). Lets one raw
 * statement both write and return the row, where the builder would need a second SELECT.
 */
export function tableRowFrom<T extends Table>(table: T, raw: Record<string, unknown>): T["$inferSelect"] | null {
  if (raw.id === null || raw.id === undefined) return null;
  // The database's name of each column, as the dialect's snake_case casing writes it (internal to Drizzle).
  dialect ??= new PgDialect({ casing: "snake_case" });
  const { casing } = dialect as unknown as { casing: { getColumnCasing(column: Column): string } };
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[casing.getColumnCasing(column)];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T["$inferSelect"];
}

/** Names a prepared query's server-side statement after its SQL text: `ef_` and 16 hex digits of its SHA-256. */
async function nameStatement(built: unknown) {
  const { queryConfig, rawQueryConfig } = built as { queryConfig?: { text: string; name?: string }; rawQueryConfig?: { name?: string } };
  if (!queryConfig || !rawQueryConfig) throw new Error("preparedQuery: the driver's prepared query changed shape");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(queryConfig.text)));
  const name = `ef_${Array.from(digest.subarray(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
  queryConfig.name = name;
  rawQueryConfig.name = name;
}

/** For queue, cron and Durable Object code: opens, runs, ends in `finally`. */
export async function withDb<T>(env: Bindings, fn: (db: Database) => Promise<T>): Promise<T> {
  const { db, pool } = createDb(env);
  try {
    return await fn(db);
  } finally {
    await pool.end();
  }
}

/** SQLSTATEs of a database that cannot serve sessions: connection exceptions, shutdown, start-up, full. */
const UNAVAILABLE_CODES = /^(08...|57P01|57P02|57P03|53300)$/;
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connection timeout|ECONNREFUSED|WebSocket|could not connect/i;

/**
 * Whether `err` (or what it wraps: Drizzle's DrizzleQueryError `cause`, a WebSocket ErrorEvent's `error`)
 * says the database is unreachable. The driver rejects a dropped WebSocket with an event, not an Error.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const queue: unknown[] = [err];
  for (let depth = 0; queue.length && depth < 8; depth++) {
    const e = queue.shift();
    if (!e || typeof e !== "object") continue;
    const { code, message, cause, error } = e as { code?: unknown; message?: unknown; cause?: unknown; error?: unknown };
    if (typeof code === "string" && UNAVAILABLE_CODES.test(code)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.test(message)) return true;
    queue.push(cause, error);
  }
  return false;
}

/** Seconds a client should wait before retrying while the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER = "2";

/**
 * The lazy per-request database: `c.var.db()` opens the pool on first call; after the response, if
 * it was opened, the pool is ended in `waitUntil`. A module-level pool breaks on the next request.
 */
export const lazyDatabase: MiddlewareHandler<AppEnv> = async (c, next) => {
  let opened: ReturnType<typeof createDb> | undefined;
  c.set("queryCount", 0);
  c.set("retryCount", 0);
  c.set("db", () => {
    opened ??= createDb(
      c.env,
      () => c.set("queryCount", c.var.queryCount + 1),
      () => c.set("retryCount", c.var.retryCount + 1),
    );
    return opened.db;
  });
  try {
    await next();
  } finally {
    // The database cannot be reached: 503 with Retry-After and GitLab's error body, not 500.
    if (c.error && isDatabaseUnavailable(c.error)) {
      c.res = undefined;
      c.res = c.json({ message: "503 Service Unavailable" }, 503, { "Retry-After": UNAVAILABLE_RETRY_AFTER });
    }
    if (opened) {
      const pool = opened.pool;
      try {
        c.executionCtx.waitUntil(pool.end());
      } catch {
        await pool.end();
      }
    }
  }
  if (c.env.QUERY_COUNT_HEADER) {
    c.header("X-Query-Count", String(c.var.queryCount));
    c.header("X-Retry-Count", String(c.var.retryCount));
  }
};
