// Embedded Postgres for local dev/tests: PGlite (WASM Postgres) exposed over TCP
// with @electric-sql/pglite-socket. PGlite is ONE Postgres session shared by
// every TCP client, so put scripts/ws-proxy.mjs (serialize=true) in front of it.
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

/**
 * Opens a PGlite database with the pg_trgm extension created.
 * @param {{ dataDir?: string }} [opts] dataDir: folder to persist to; undefined = in-memory
 * @returns {Promise<PGlite>}
 */
export async function openPglite({ dataDir } = {}) {
  const options = { extensions: { pg_trgm } }
  // NB: `new PGlite(undefined, options)` silently ignores options; pass them first instead.
  const pglite = dataDir ? new PGlite(dataDir, options) : new PGlite(options)
  await pglite.waitReady
  await pglite.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm')
  return pglite
}

/**
 * Serves a PGlite instance over the Postgres wire protocol on 127.0.0.1 (ephemeral port).
 * close() stops the server only; the caller still owns (and closes) `pglite`.
 * @param {PGlite} pglite
 * @returns {Promise<{ port: number, url: string, close: () => Promise<void> }>}
 */
export async function servePglite(pglite) {
  // port 0 is supported: start() reads the OS-assigned port back from server.address().
  // maxConnections defaults to 1 (extra clients get "Too many connections"), so raise it.
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 100 })
  await server.start()
  const port = Number(server.getServerConn().split(':').pop()) // "127.0.0.1:<port>"
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: () => server.stop(),
  }
}
