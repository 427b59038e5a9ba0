// node --test test/node/
// Neon serverless driver -> scripts/ws-proxy.mjs -> pglite-socket / real Postgres.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { WebSocket } from 'ws'
import { Pool, neonConfig } from '@neondatabase/serverless'
import { openPglite, servePglite } from '../../scripts/pglite-server.mjs'
import { startWsProxy } from '../../scripts/ws-proxy.mjs'

// Last-resort guard: never let a stuck handle keep this file alive.
setTimeout(() => { console.error('ws-proxy.test: watchdog fired'); process.exit(1) }, 90_000).unref()

const REAL_PG = 'postgres://postgres@127.0.0.1:5432/postgres'

/** @type {Array<() => Promise<unknown>>} */
const cleanups = []
after(async () => { for (const fn of cleanups.reverse()) await fn().catch(() => {}) })

const pglite = await openPglite({})
cleanups.push(() => pglite.close())
await pglite.exec('CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL)')
const served = await servePglite(pglite)
cleanups.push(served.close)
const pgliteAddress = `127.0.0.1:${served.port}`
const proxy = await startWsProxy({ serialize: (address) => address === pgliteAddress })
cleanups.push(proxy.close)

neonConfig.webSocketConstructor = WebSocket
neonConfig.wsProxy = (host, port) => `127.0.0.1:${proxy.port}/v1?address=${host}:${port}`
neonConfig.useSecureWebSocket = false
neonConfig.pipelineTLS = false
neonConfig.pipelineConnect = false

/** @param {string} host @param {number} port @returns {Promise<boolean>} */
const answers = (host, port) =>
  new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 1000 })
    const done = (/** @type {boolean} */ ok) => { s.destroy(); resolve(ok) }
    s.once('connect', () => done(true)).once('error', () => done(false)).once('timeout', () => done(false))
  })

/**
 * One client: `rounds` times open a Pool(max 1), write+read back in a transaction, end the pool.
 * @param {number} n @param {number} rounds @returns {Promise<number>} correct round trips
 */
async function client(n, rounds) {
  let ok = 0
  for (let r = 0; r < rounds; r++) {
    const pool = new Pool({ connectionString: served.url, max: 1 })
    pool.on('error', () => {}) // surfaced via the failing query instead of as an uncaught exception
    try {
      const c = await pool.connect()
      try {
        const v = `client${n}-round${r}-${Math.random()}`
        await c.query('BEGIN')
        const { rows: [{ id }] } = await c.query('INSERT INTO t(v) VALUES ($1) RETURNING id', [v])
        const { rows } = await c.query('SELECT v FROM t WHERE id=$1', [id])
        await c.query('COMMIT')
        if (rows[0]?.v === v) ok++
      } finally {
        c.release()
      }
    } finally {
      await pool.end()
    }
  }
  return ok
}

test('10 concurrent Neon clients x 20 transactions through the proxy into PGlite', { timeout: 60_000 }, async () => {
  const results = await Promise.all(Array.from({ length: 10 }, (_, n) => client(n, 20)))
  assert.equal(results.reduce((a, b) => a + b, 0), 200)
  const { rows } = await pglite.query('SELECT count(*)::int AS n FROM t')
  assert.deepEqual(rows, [{ n: 200 }])
})

test('pg_trgm is available in PGlite', { timeout: 10_000 }, async () => {
  const { rows } = await pglite.query(`SELECT similarity('gitlab', 'gitlub') > 0.3 AS ok`)
  assert.deepEqual(rows, [{ ok: true }])
})

test('proxy refuses non-loopback targets', { timeout: 10_000 }, async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1?address=10.1.2.3:5432`)
  const code = await new Promise((resolve) => ws.on('close', resolve))
  assert.equal(code, 1008)
})

test('real Postgres (not serialised) through the proxy', { timeout: 20_000 }, async (t) => {
  if (!(await answers('127.0.0.1', 5432))) return t.skip('nothing listening on 127.0.0.1:5432')
  const pool = new Pool({ connectionString: REAL_PG, max: 1 })
  try {
    const { rows } = await pool.query('select 1 as one')
    assert.deepEqual(rows, [{ one: 1 }])
  } finally {
    await pool.end()
  }
})

test('sessions share kept backends: one backend serves sequential sessions, none opened per session', { timeout: 30_000 }, async (t) => {
  if (!(await answers('127.0.0.1', 5432))) return t.skip('nothing listening on 127.0.0.1:5432')
  const pids = new Set()
  for (let i = 0; i < 5; i++) {
    const pool = new Pool({ connectionString: REAL_PG, max: 1 })
    try {
      const { rows } = await pool.query('select pg_backend_pid() as pid, $1::int as i', [i])
      assert.equal(rows[0].i, i)
      pids.add(rows[0].pid)
    } finally {
      await pool.end()
    }
  }
  assert.equal(pids.size, 1)
})

test('named statements are kept per backend across sessions, and parsed again where a session moves to a backend without them', { timeout: 30_000 }, async (t) => {
  if (!(await answers('127.0.0.1', 5432))) return t.skip('nothing listening on 127.0.0.1:5432')
  const name = `ef_test_${process.pid}_${Date.now()}`
  const text = 'SELECT pg_backend_pid() AS pid, $1::int * 2 AS twice'
  // Sequential sessions: each new client sends Parse(name) again; where the backend already holds it,
  // Postgres would answer 42P05 "prepared statement already exists" unless the proxy drops that Parse.
  const pids = []
  for (let i = 0; i < 4; i++) {
    const pool = new Pool({ connectionString: REAL_PG, max: 1 })
    try {
      const { rows } = await pool.query({ name, text, values: [i] })
      assert.equal(rows[0].twice, i * 2)
      pids.push(rows[0].pid)
    } finally {
      await pool.end()
    }
  }
  // One session's second run sends only Bind (the driver remembers its Parse); with the backend it used
  // held by another session's transaction, it runs on another backend, which must get the Parse first.
  const mover = new Pool({ connectionString: REAL_PG, max: 1 })
  const holder = new Pool({ connectionString: REAL_PG, max: 1 })
  try {
    const c = await mover.connect()
    const first = await c.query({ name, text, values: [10] })
    const h = await holder.connect()
    await h.query('BEGIN')
    const { rows: [{ pid: held }] } = await h.query('SELECT pg_backend_pid() AS pid')
    assert.equal(held, first.rows[0].pid, 'the holder took the backend the mover had just used')
    const second = await c.query({ name, text, values: [21] })
    assert.equal(second.rows[0].twice, 42)
    assert.notEqual(second.rows[0].pid, held)
    await h.query('COMMIT')
    h.release()
    c.release()
    // Every backend that ran it holds the statement once.
    const check = await holder.query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1', [name])
    assert.ok(check.rows[0].n <= 1)
  } finally {
    await mover.end()
    await holder.end()
  }
})

test('named statements on the embedded PGlite (one shared session): each session parses again, the proxy keeps one', { timeout: 30_000 }, async () => {
  const name = `ef_pglite_${process.pid}_${Date.now()}`
  for (let i = 0; i < 3; i++) {
    const pool = new Pool({ connectionString: served.url, max: 1 })
    try {
      const first = await pool.query({ name, text: 'SELECT $1::int + 1 AS next', values: [i] })
      const again = await pool.query({ name, text: 'SELECT $1::int + 1 AS next', values: [i + 10] }) // Bind only
      assert.deepEqual([first.rows[0].next, again.rows[0].next], [i + 1, i + 11])
    } finally {
      await pool.end()
    }
  }
})

test('a session that leaves mid-transaction: its backend is destroyed, the transaction rolled back, the next session clean', { timeout: 30_000 }, async (t) => {
  if (!(await answers('127.0.0.1', 5432))) return t.skip('nothing listening on 127.0.0.1:5432')
  const table = `proxy_test_${process.pid}`
  const setup = new Pool({ connectionString: REAL_PG, max: 1 })
  await setup.query(`CREATE TABLE ${table} (v text)`)
  await setup.end()
  try {
    const leaver = new Pool({ connectionString: REAL_PG, max: 1 })
    leaver.on('error', () => {})
    const c = await leaver.connect()
    await c.query('BEGIN')
    const { rows: [{ pid }] } = await c.query(`INSERT INTO ${table} VALUES ('uncommitted') RETURNING pg_backend_pid() AS pid`)
    await c.query('SET LOCAL statement_timeout = 1234')
    c.release(true) // ends the session without COMMIT
    await leaver.end()
    const next = new Pool({ connectionString: REAL_PG, max: 1 })
    try {
      const { rows } = await next.query(`SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM ${table}) AS n,
        current_setting('statement_timeout') AS timeout, txid_current_if_assigned() AS xid`)
      assert.notEqual(rows[0].pid, pid)
      assert.equal(rows[0].n, 0)
      assert.equal(rows[0].timeout, '0')
      assert.equal(rows[0].xid, null)
    } finally {
      await next.end()
    }
  } finally {
    const drop = new Pool({ connectionString: REAL_PG, max: 1 })
    await drop.query(`DROP TABLE ${table}`)
    await drop.end()
  }
})

test('20 concurrent sessions x 10 SELECT … FOR UPDATE increments on real Postgres through the pool: none lost', { timeout: 60_000 }, async (t) => {
  if (!(await answers('127.0.0.1', 5432))) return t.skip('nothing listening on 127.0.0.1:5432')
  const table = `proxy_counter_${process.pid}`
  const setup = new Pool({ connectionString: REAL_PG, max: 1 })
  await setup.query(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL); INSERT INTO ${table} VALUES (1, 0)`)
  await setup.end()
  try {
    await Promise.all(Array.from({ length: 20 }, async () => {
      for (let r = 0; r < 10; r++) {
        const pool = new Pool({ connectionString: REAL_PG, max: 1 })
        const c = await pool.connect()
        try {
          await c.query('BEGIN')
          const { rows } = await c.query(`SELECT n FROM ${table} WHERE id = 1 FOR UPDATE`)
          await c.query(`UPDATE ${table} SET n = $1 WHERE id = 1`, [rows[0].n + 1])
          await c.query('COMMIT')
        } finally {
          c.release()
          await pool.end()
        }
      }
    }))
    const check = new Pool({ connectionString: REAL_PG, max: 1 })
    const { rows } = await check.query(`SELECT n FROM ${table} WHERE id = 1`)
    await check.end()
    assert.equal(rows[0].n, 200)
    // poolMax (10) backends for this database, and the one PGlite backend of the first test.
    assert.ok(proxy.stats().backends <= 11, `at most poolMax backends (${proxy.stats().backends})`)
  } finally {
    const drop = new Pool({ connectionString: REAL_PG, max: 1 })
    await drop.query(`DROP TABLE ${table}`)
    await drop.end()
  }
})

test('a database that cannot be reached: the session fails with 08006 at once, and works again once it is back', { timeout: 30_000 }, async () => {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  await new Promise((resolve) => server.close(() => resolve(undefined))) // nothing listens there now
  const pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 1 })
  pool.on('error', () => {})
  const started = Date.now()
  await assert.rejects(pool.query('select 1'), (/** @type {any} */ err) => err.code === '08006')
  assert.ok(Date.now() - started < 2000)
  await pool.end().catch(() => {})
  // Back: PGlite served on that very port answers through the same proxy, nothing restarted.
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const back = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port, maxConnections: 10 })
  await back.start()
  try {
    const again = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 1 })
    const { rows } = await again.query('select 41 + $1::int as n', [1])
    assert.deepEqual(rows, [{ n: 42 }])
    await again.end()
  } finally {
    await back.stop()
  }
})

test('raw TCP sessions (PG_TCP_PROXY): the same pooled sessions without the WebSocket, for the configured target', { timeout: 60_000 }, async () => {
  const pg = (await import('pg')).default
  const tcp = await startWsProxy({ serialize: (address) => address === pgliteAddress, tcpTarget: pgliteAddress })
  cleanups.push(tcp.close)
  assert.ok(tcp.tcpPort)
  const run = async (/** @type {number} */ n) => {
    const c = new pg.Client({ host: '127.0.0.1', port: /** @type {number} */ (tcp.tcpPort), user: 'postgres', database: 'postgres' })
    await c.connect()
    try {
      await c.query('BEGIN')
      const { rows: [{ id }] } = await c.query('INSERT INTO t(v) VALUES ($1) RETURNING id', [`tcp-${n}`])
      const { rows } = await c.query('SELECT v FROM t WHERE id=$1', [id])
      await c.query('COMMIT')
      return rows[0]?.v === `tcp-${n}`
    } finally {
      await c.end()
    }
  }
  const results = await Promise.all(Array.from({ length: 10 }, (_, n) => run(n)))
  assert.deepEqual(results, Array(10).fill(true))
  const { rows } = await pglite.query(`SELECT count(*)::int AS n FROM t WHERE v LIKE 'tcp-%'`)
  assert.deepEqual(rows, [{ n: 10 }])
})
