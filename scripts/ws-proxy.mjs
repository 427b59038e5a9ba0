// WebSocket -> TCP proxy for the Neon serverless driver (the driver opens
// ws://127.0.0.1:<port>/v1?address=host:port and speaks the raw Postgres wire
// protocol in binary frames). Only loopback targets are allowed.
//
// Targets for which serialize(address) is true (an embedded PGlite behind
// pglite-socket: one Postgres session shared by all TCP clients) are guarded by a
// per-address FIFO mutex: a client takes it before forwarding the first byte of a
// unit of work and gives it back at ReadyForQuery 'I' (idle), so a whole
// transaction / extended-protocol exchange runs alone.
import http from 'node:http'
import net from 'node:net'
import { WebSocketServer } from 'ws'

/** @typedef {{ type: string, data: Buffer }} PgMessage  type '' = startup message */

/** @param {string} host */
const isLoopback = (host) =>
  host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

/**
 * Splits a Postgres byte stream into whole messages (type byte + int32 length incl. itself).
 * @param {boolean} startup whether the first message is the untyped startup message
 * @returns {(chunk: Buffer) => PgMessage[]}
 */
function framer(startup) {
  /** @type {Buffer} */
  let buf = Buffer.alloc(0)
  return (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk
    const out = []
    for (;;) {
      const hdr = startup ? 0 : 1
      if (buf.length < hdr + 4) break
      const len = hdr + buf.readInt32BE(hdr)
      if (buf.length < len) break
      out.push({ type: startup ? '' : String.fromCharCode(buf[0]), data: buf.subarray(0, len) })
      buf = buf.subarray(len)
      startup = false
    }
    return out
  }
}

/**
 * @param {{ serialize: (address: string) => boolean }} opts
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startWsProxy({ serialize }) {
  /** @type {Map<string, { held: boolean, waiters: Array<() => void> }>} FIFO mutex per target */
  const locks = new Map()
  /** @param {string} key @param {() => void} grant */
  const acquire = (key, grant) => {
    let lock = locks.get(key)
    if (!lock) locks.set(key, (lock = { held: false, waiters: [] }))
    if (lock.held) lock.waiters.push(grant)
    else { lock.held = true; grant() }
  }
  /** @param {string} key hands the lock to the next waiter, if any */
  const release = (key) => {
    const lock = /** @type {{ held: boolean, waiters: Array<() => void> }} */ (locks.get(key))
    const next = lock.waiters.shift()
    if (next) next()
    else lock.held = false
  }

  /** @type {Set<(code?: number, reason?: string) => void>} shutdown functions of open connections */
  const open = new Set()
  const server = http.createServer((_req, res) => res.writeHead(426).end())
  const wss = new WebSocketServer({ server })

  wss.on('connection', (ws, req) => {
    const address = new URL(req.url ?? '/', 'http://x').searchParams.get('address') ?? ''
    const i = address.lastIndexOf(':')
    const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1')
    const port = Number(address.slice(i + 1))
    if (i < 0 || !isLoopback(host) || !(port > 0 && port < 65536)) {
      ws.close(1008, 'address not allowed (loopback only)')
      return
    }
    const serial = serialize(address)
    const tcp = net.connect({ host, port }) // writes made before 'connect' are queued by node
    tcp.setNoDelay(true)

    let closed = false
    /** @type {'free' | 'waiting' | 'held'} */
    let lock = 'free'
    /** @type {PgMessage[]} client messages waiting for the lock */
    let queue = []
    let inflight = 0 // forwarded messages that will be answered by a ReadyForQuery
    let dirty = false // forwarded messages after the last Sync/Query (e.g. Parse without Sync yet)
    const fromClient = framer(true)
    const fromServer = framer(false)

    const unlock = () => { if (lock === 'held') { lock = 'free'; release(address) } }
    const shutdown = (code = 1000, reason = '') => {
      if (closed) return
      closed = true
      open.delete(shutdown)
      unlock()
      tcp.destroy()
      ws.close(code, reason)
    }
    open.add(shutdown)

    /** @param {PgMessage} m */
    const forward = (m) => {
      if (m.type === 'X') { unlock(); tcp.end(); return } // Terminate gets no reply: drop it
      if (m.type === '' || m.type === 'Q' || m.type === 'S' || m.type === 'F') { inflight++; dirty = false }
      else dirty = true
      tcp.write(m.data)
    }
    const granted = () => {
      if (closed) return release(address)
      lock = 'held'
      const q = queue
      queue = []
      q.forEach(forward)
    }

    ws.on('message', (data) => {
      if (closed) return
      const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(/** @type {any} */ (data))
      if (!serial) { tcp.write(chunk); return }
      for (const m of fromClient(chunk)) {
        if (lock === 'held' || (lock === 'free' && m.type === 'X')) forward(m)
        else {
          queue.push(m)
          if (lock === 'free') { lock = 'waiting'; acquire(address, granted) }
        }
      }
    })
    tcp.on('data', (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk)
      if (!serial) return
      for (const m of fromServer(chunk)) {
        if (m.type !== 'Z') continue
        inflight = Math.max(0, inflight - 1)
        if (m.data[5] === 0x49 /* 'I' */ && inflight === 0 && !dirty) unlock()
      }
    })
    ws.on('close', () => shutdown())
    ws.on('error', () => shutdown(1011))
    tcp.on('close', () => shutdown())
    tcp.on('error', (err) => shutdown(1011, `upstream: ${err.message}`.slice(0, 120)))
  })

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve(undefined))
  })
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())

  return {
    port,
    close: async () => {
      for (const shutdown of [...open]) shutdown(1001, 'proxy closing')
      for (const ws of wss.clients) ws.terminate()
      wss.close()
      await new Promise((resolve) => {
        server.close(() => resolve(undefined))
        server.closeAllConnections()
      })
    },
  }
}
