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
