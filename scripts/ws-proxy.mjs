// WebSocket -> Postgres proxy for the Neon serverless driver, with a transaction-mode connection pool
// (docs/architecture.md, "Running locally", docs/database.md "The pooling proxy").
//
// The driver opens ws://127.0.0.1:<port>/v1?address=host:port and speaks the raw Postgres wire protocol
// in binary frames. A Worker opens one such session per request, so a new Postgres backend per request
// would dominate every request (a fork and its catalog reads, about 5 ms). Instead the proxy answers the
// session's start-up itself (AuthenticationOk, the ParameterStatus values its pooled backends reported,
// BackendKeyData, ReadyForQuery) and lends the session a kept backend connection for each unit of work,
// as PgBouncer in transaction mode and Neon's pooled endpoint (`-pooler` host, which is PgBouncer) do:
//
// - a session takes a backend when it sends the first message of a unit of work, and gives it back at
//   ReadyForQuery with status 'I' (idle) once every Query/Sync it sent has been answered and no message
//   follows the last Sync. Status 'T' or 'E' (in a transaction, failed transaction) keeps it, so a
//   transaction, `SELECT … FOR UPDATE` included, runs on one backend from BEGIN to COMMIT/ROLLBACK;
// - a session that goes away while it holds a backend (mid-transaction, or with a statement in flight)
//   destroys that backend: Postgres rolls its transaction back; a pooled backend is never reused in an
//   unknown state. Terminate ('X') never reaches a pooled backend;
// - what transaction pooling forbids (as on Neon's pooled endpoint): session state that outlives a
//   transaction — SET without LOCAL, SQL-level PREPARE, session advisory locks, LISTEN, temp tables.
//   The application uses none (`SET LOCAL` and `pg_advisory_xact_lock` are transaction-scoped).
//   Unnamed statements and portals are safe: a unit of work always ends with its Sync before the backend
//   moves on;
// - protocol-level named prepared statements work as PgBouncer (1.21+, `max_prepared_statements`), and so
//   Neon's pooled endpoint, serves them: each backend remembers the statements it parsed, each session
//   the ones it parsed. A session's Parse of a name its backend already holds (same text) becomes the Parse
//   of an empty unnamed statement (the client still gets its ParseComplete, in order), so the backend's
//   cached plan serves it; a Bind or Describe of a name the session parsed but its current backend lacks
//   gets that Parse put in front of it, and the ParseComplete it answers is not passed on. The Worker names
//   only its fixed queries, by a hash of their text (functions/kernel/db.ts `preparedQuery`), so a name
//   never meets another text. A unit of work that parsed a new name and then failed leaves that backend's
//   statements unknown: the backend is closed instead of kept;
// - an embedded PGlite behind pglite-socket is ONE Postgres session shared by every TCP client, so a
//   `serialize`d target gets a pool of exactly one backend: one unit of work at a time (docs/database.md, "The pooling proxy"); the pool is that lock;
// - a target that asks for a password (anything but trust) is not pooled: the proxy cannot answer the
//   authentication for it, so it pipes that session to its own TCP connection as before (the first
//   backend's authentication request is handed to the client, and the key is remembered as direct);
// - a database that cannot be reached: connecting gives up after `connectTimeoutMs` (refused at once),
//   and the session gets a FATAL ErrorResponse with SQLSTATE 08006 and is closed, so the Worker answers
//   503 instead of hanging; the next session tries again, so service resumes as soon as it is back.
//
// Only loopback targets are allowed.
import http from 'node:http'
import net from 'node:net'
import { WebSocketServer } from 'ws'

/** @typedef {{ type: string, data: Buffer }} PgMessage  type '' = untyped start-up message */

/** @param {string} host */
const isLoopback = (host) =>
  host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

/**
 * Splits a Postgres byte stream into whole messages (type byte + int32 length incl. itself).
 * @param {boolean} startup whether the stream starts with an untyped start-up message (client side);
 *   an SSLRequest or GSSENCRequest before it is untyped too
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
      const data = buf.subarray(0, len)
      out.push({ type: startup ? '' : String.fromCharCode(buf[0]), data })
      buf = buf.subarray(len)
      if (startup) {
        const code = len >= 8 ? data.readInt32BE(4) : 0
        startup = code === SSL_REQUEST || code === GSSENC_REQUEST
      }
    }
    return out
  }
}

/** @param {string} type @param {Buffer} body */
const message = (type, body) => {
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const int32 = (/** @type {number} */ n) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b }
const AUTH_OK = message('R', int32(0))
const READY_IDLE = message('Z', Buffer.from('I'))
/** A FATAL ErrorResponse, as Postgres sends when it refuses a session. */
const fatal = (/** @type {string} */ code, /** @type {string} */ text) =>
  message('E', Buffer.concat([
    Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0`, 'utf8'), Buffer.from([0]),
  ]))

/**
 * One kept backend connection: a TCP socket that completed its start-up (trust authentication).
 * `owner` receives its messages while it is lent to a session; `prepared` holds the named statements
 * it parsed (name → text), `unsure` that a unit of work failed after parsing a new one.
 * @typedef {{ socket: net.Socket, owner: ((m: PgMessage[]) => void) | null, onClose: (() => void) | null,
 *   idleTimer: NodeJS.Timeout | null, prepared: Map<string, string>, unsure: boolean }} Backend
 */

/** A Parse message's statement name and query text (both NUL-terminated after the header). */
function parseNameAndText(/** @type {Buffer} */ data) {
  const nameEnd = data.indexOf(0, 5)
  const textEnd = data.indexOf(0, nameEnd + 1)
  return { name: data.toString('utf8', 5, nameEnd), text: data.toString('utf8', nameEnd + 1, textEnd) }
}
/** The statement a Bind (after its portal name) or a Describe/Close of a statement ('S') names, or ''. */
function statementNamed(/** @type {PgMessage} */ m) {
  const data = m.data
  if (m.type === 'B') { const portalEnd = data.indexOf(0, 5); return data.toString('utf8', portalEnd + 1, data.indexOf(0, portalEnd + 1)) }
  if ((m.type === 'D' || m.type === 'C') && data[5] === 0x53) return data.toString('utf8', 6, data.indexOf(0, 6))
  return ''
}
/** Parse of an empty unnamed statement: answered by ParseComplete, costs the backend nothing. */
const PARSE_EMPTY = Buffer.from([0x50, 0, 0, 0, 8, 0, 0, 0, 0])

/**
 * The backends of one target (address + start-up message): at most `max`, FIFO waiters beyond.
 */
class BackendPool {
  /**
   * @param {{ host: string, port: number, startup: Buffer, max: number, idleMs: number,
   *   connectTimeoutMs: number, acquireTimeoutMs: number }} opts
   */
  constructor(opts) {
    this.opts = opts
    /** @type {'unknown' | 'pooled' | 'direct'} */
    this.mode = 'unknown'
    /** @type {Buffer | null} the ParameterStatus messages of the first backend, replayed to sessions */
    this.params = null
    /** @type {Backend[]} */
    this.idle = []
    /** @type {Set<Backend>} */
    this.all = new Set()
    /** @type {Array<{ grant: (b: Backend | null, error?: Buffer) => void, timer: NodeJS.Timeout }>} */
    this.waiters = []
    this.connecting = 0
    this.closed = false
    /** @type {Promise<{ direct?: { socket: net.Socket, first: Buffer }, error?: Buffer }> | null} */
    this.probing = null
  }

  /**
   * Learns, once, whether the target can be pooled: opens the first backend (concurrent first sessions
   * share it). Resolves `{}` when pooled, `{ direct }` (for the caller alone) when the target wants a
   * password, `{ error }` when it cannot be reached (the next session probes again).
   */
  probe() {
    if (this.mode === 'pooled') return Promise.resolve({})
    this.probing ??= this.connect().then((result) => {
      this.probing = null
      if (result.backend) {
        this.mode = 'pooled'
        if (this.closed) { result.backend.socket.destroy(); return {} }
        this.all.add(result.backend)
        this.release(result.backend)
        return {}
      }
      if (result.direct) this.mode = 'direct'
      return result
    })
    return this.probing
  }

  /**
   * Opens one backend. Resolves with it once ReadyForQuery arrives; or with `direct` (the socket and
   * the authentication request) when the server wants a password; or with an ErrorResponse to relay.
   * @returns {Promise<{ backend?: Backend, direct?: { socket: net.Socket, first: Buffer }, error?: Buffer }>}
   */
  connect() {
    const { host, port, startup, connectTimeoutMs } = this.opts
    return new Promise((resolve) => {
      const socket = net.connect({ host, port })
      socket.setNoDelay(true)
      const frames = framer(false)
      /** @type {Buffer[]} */
      const params = []
      let done = false
      const finish = (/** @type {any} */ result) => {
        if (done) return
        done = true
        clearTimeout(timer)
        socket.removeAllListeners('data')
        resolve(result)
      }
      const timer = setTimeout(() => {
        socket.destroy()
        finish({ error: fatal('08006', `could not connect to the database at ${host}:${port}: timed out after ${connectTimeoutMs} ms`) })
      }, connectTimeoutMs)
      socket.on('error', (err) => {
        socket.destroy()
        finish({ error: fatal('08006', `could not connect to the database at ${host}:${port}: ${err.message}`) })
      })
      socket.on('close', () => finish({ error: fatal('08006', `the database at ${host}:${port} closed the connection`) }))
      socket.on('data', (chunk) => {
        const ms = frames(chunk)
        for (const [n, m] of ms.entries()) {
          if (m.type === 'R' && m.data.readInt32BE(5) !== 0) {
            // A password (cleartext, MD5, SCRAM) is wanted: hand this socket to the client as it is.
            socket.removeAllListeners('error')
            socket.removeAllListeners('close')
            return finish({ direct: { socket, first: Buffer.concat(ms.slice(n).map((x) => x.data)) } })
          }
          if (m.type === 'S') params.push(m.data)
          else if (m.type === 'E') { socket.destroy(); return finish({ error: m.data }) }
          else if (m.type === 'Z') {
            this.params ??= Buffer.concat(params)
            /** @type {Backend} */
            const backend = { socket, owner: null, onClose: null, idleTimer: null, prepared: new Map(), unsure: false }
            finish({ backend }) // drops the start-up listeners
            socket.removeAllListeners('error')
            socket.removeAllListeners('close')
            socket.on('data', (c) => {
              const more = frames(c)
              if (backend.owner) backend.owner(more) // asynchronous messages of an idle backend are dropped
            })
            socket.on('error', () => socket.destroy())
            socket.on('close', () => this.drop(backend))
            return
          }
        }
      })
      socket.write(startup)
    })
  }

  /** Removes a backend that closed or was destroyed; a waiter may now open a new one. */
  drop(/** @type {Backend} */ backend) {
    if (!this.all.delete(backend)) return
    if (backend.idleTimer) clearTimeout(backend.idleTimer)
    this.idle = this.idle.filter((b) => b !== backend)
    backend.socket.destroy()
    const onClose = backend.onClose
    backend.owner = null
    backend.onClose = null
    onClose?.()
    this.pump()
  }

  /** Destroys a backend whose state is unknown (its session left mid-transaction or mid-statement). */
  destroy(/** @type {Backend} */ backend) {
    this.drop(backend)
  }

  /**
   * Calls `grant(backend)` when one is free (FIFO), or `grant(null, errorResponse)` when none can be
   * opened or none came free within `acquireTimeoutMs`.
   * @param {(b: Backend | null, error?: Buffer) => void} grant
   */
  acquire(grant) {
    const waiter = {
      grant,
      timer: setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        grant(null, fatal('53300', `no database connection came free within ${this.opts.acquireTimeoutMs} ms`))
      }, this.opts.acquireTimeoutMs),
    }
    this.waiters.push(waiter)
    this.pump()
  }

  /** Hands idle backends to waiters, and opens new ones while below `max`. */
  pump() {
    while (this.waiters.length > 0 && this.idle.length > 0) {
      const backend = /** @type {Backend} */ (this.idle.pop())
      if (backend.socket.destroyed || backend.socket.readyState !== 'open') { this.drop(backend); continue }
      if (backend.idleTimer) clearTimeout(backend.idleTimer)
      backend.idleTimer = null
      const waiter = /** @type {{ grant: Function, timer: NodeJS.Timeout }} */ (this.waiters.shift())
      clearTimeout(waiter.timer)
      waiter.grant(backend)
    }
    while (!this.closed && this.waiters.length > this.connecting && this.all.size + this.connecting < this.opts.max) {
      this.connecting++
      this.connect().then((result) => {
        this.connecting--
        if (result.backend) {
          if (this.closed) return result.backend.socket.destroy()
          this.all.add(result.backend)
          this.release(result.backend)
          return
        }
        result.direct?.socket.destroy() // a password appeared on a pooled target: fail this waiter
        // The database cannot be reached (or refused the start-up): every waiter gets the error now.
        const error = result.error ?? fatal('08006', 'the database asked for a password on a pooled connection')
        for (const w of this.waiters.splice(0)) { clearTimeout(w.timer); w.grant(null, error) }
      })
    }
  }

  /** Gives a backend back: to the next waiter, or to the idle list (closed after `idleMs`). */
  release(/** @type {Backend} */ backend) {
    backend.owner = null
    backend.onClose = null
    if (!this.all.has(backend)) return
    if (backend.unsure) return this.drop(backend)
    this.idle.push(backend)
    backend.idleTimer = setTimeout(() => this.drop(backend), this.opts.idleMs)
    backend.idleTimer.unref()
    this.pump()
  }

  close() {
    this.closed = true
    for (const w of this.waiters.splice(0)) { clearTimeout(w.timer); w.grant(null, fatal('57P01', 'the proxy is closing')) }
    for (const backend of [...this.all]) this.drop(backend)
  }
}

/**
 * @param {{ serialize: (address: string) => boolean, poolMax?: number, idleMs?: number,
 *   connectTimeoutMs?: number, acquireTimeoutMs?: number, tcpTarget?: string }} opts
 *   serialize: targets that are one shared session (PGlite): a pool of one backend;
 *   tcpTarget: also accept raw TCP sessions (no WebSocket) on `tcpPort`, all for this host:port;
 *   poolMax: backends per other target (10); idleMs: an idle backend is closed after this (10 s);
 *   connectTimeoutMs: give up opening a backend (1.5 s); acquireTimeoutMs: give up waiting for one (15 s).
 * @returns {Promise<{ port: number, tcpPort: number | null, close: () => Promise<void>, stats: () => { backends: number, idle: number } }>}
 */
export async function startWsProxy({ serialize, poolMax = 10, idleMs = 10_000, connectTimeoutMs = 1500, acquireTimeoutMs = 15_000, tcpTarget = '' }) {
  /** @type {Map<string, BackendPool>} pools by address and start-up message */
  const pools = new Map()
  /** @type {Set<(code?: number, reason?: string) => void>} shutdown functions of open sessions */
  const open = new Set()
  const server = http.createServer((_req, res) => res.writeHead(426).end())
  const wss = new WebSocketServer({ server })

  wss.on('connection', (ws, req) => {
    const address = new URL(req.url ?? '/', 'http://x').searchParams.get('address') ?? ''
    session(address, {
      send: (data) => { if (ws.readyState === ws.OPEN) ws.send(data) },
      close: (code, reason) => ws.close(code, reason),
      listen: (onChunk, onEnd) => {
        ws.on('message', (data) => onChunk(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(/** @type {any} */ (data))))
        ws.on('close', () => onEnd())
        ws.on('error', () => onEnd(1011))
      },
    })
  })

  /**
   * Raw TCP sessions (`tcpTarget`): the same Postgres byte stream without the WebSocket around it, for a
   * Worker that opens its socket with `connect()` (functions/kernel/tcp_socket.ts). Each one targets the
   * one database address given at start: there is no URL to carry `?address=`.
   */
  /** @type {net.Server | null} */
  let tcpServer = null
  /** @type {Set<net.Socket>} */
  const tcpSockets = new Set()
  if (tcpTarget) {
    tcpServer = net.createServer((socket) => {
      socket.setNoDelay(true)
      tcpSockets.add(socket)
      socket.on('close', () => tcpSockets.delete(socket))
      session(tcpTarget, {
        send: (data) => { if (!socket.destroyed) socket.write(data) },
        close: () => socket.end(),
        listen: (onChunk, onEnd) => {
          socket.on('data', onChunk)
          socket.on('close', () => onEnd())
          socket.on('error', () => onEnd(1011))
        },
      })
    })
  }

  /**
   * One client session, whatever carries it.
   * @param {string} address the target database, host:port
   * @param {{ send: (data: Buffer) => void, close: (code?: number, reason?: string) => void,
   *   listen: (onChunk: (chunk: Buffer) => void, onEnd: (code?: number) => void) => void }} client
   */
  function session(address, client) {
    const i = address.lastIndexOf(':')
    const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1')
    const port = Number(address.slice(i + 1))
    if (i < 0 || !isLoopback(host) || !(port > 0 && port < 65536)) {
      client.close(1008, 'address not allowed (loopback only)')
      return
    }

    let closed = false
    /** @type {BackendPool | null} */
    let pool = null
    /** @type {net.Socket | null} a direct (unpooled) session's own connection */
    let direct = null
    /** @type {'startup' | 'ready' | 'direct'} */
    let phase = 'startup'
    /** @type {Backend | null} the backend lent to this session */
    let backend = null
    let waiting = false
    /** @type {PgMessage[]} messages waiting for a backend */
    let queue = []
    let inflight = 0 // forwarded Query/Sync/FunctionCall messages not yet answered by ReadyForQuery
    let dirty = false // messages forwarded after the last Sync (a Parse whose Sync is still to come)
    let parsedNew = false // this unit of work sent the lent backend a named Parse it did not hold
    /** @type {Map<string, Buffer>} the named statements this session parsed: name → its Parse message */
    const parsed = new Map()
    /** @type {Array<'keep' | 'drop' | 'sync'>} forwarded Parses (is their ParseComplete the client's?) and what a ReadyForQuery answers, in order */
    const expected = []
    const fromClient = framer(true)

    const send = (/** @type {Buffer} */ data) => client.send(data)
    const shutdown = (code = 1000, reason = '') => {
      if (closed) return
      closed = true
      open.delete(shutdown)
      if (backend && pool) { const b = backend; backend = null; pool.destroy(b) }
      direct?.destroy()
      client.close(code, reason)
    }
    open.add(shutdown)
    /** Sends a FATAL error to the client and closes, as Postgres does. */
    const refuse = (/** @type {Buffer} */ error) => { send(error); shutdown(1011, 'database unavailable') }

    /** Messages from the lent backend: to the client; gives the backend back at the end of the unit. */
    const fromBackend = (/** @type {PgMessage[]} */ ms) => {
      if (ms.length === 0) return
      let out = []
      for (const m of ms) {
        if (m.type === '1' && expected.length > 0) { // ParseComplete: ours, or the client's
          if (expected.shift() === 'drop') continue
        }
        out.push(m.data)
        if (m.type === 'E' && parsedNew && backend) backend.unsure = true
        if (m.type !== 'Z') continue
        // After an error the backend skips to the Sync: Parses before it get no answer.
        const sync = expected.indexOf('sync')
        if (sync >= 0) expected.splice(0, sync + 1)
        inflight = Math.max(0, inflight - 1)
        if (m.data[5] === 0x49 /* 'I' */ && inflight === 0 && !dirty && backend && pool) {
          send(out.length === 1 ? out[0] : Buffer.concat(out))
          out = []
          parsedNew = false
          const b = backend
          backend = null
          pool.release(b)
          if (queue.length > 0) take()
        }
      }
      if (out.length > 0) send(out.length === 1 ? out[0] : Buffer.concat(out))
    }
    /** @param {PgMessage} m */
    const forward = (m) => {
      if (m.type === 'Q' || m.type === 'S' || m.type === 'F') { inflight++; dirty = false }
      else if (m.type !== 'd' && m.type !== 'c' && m.type !== 'f') dirty = true // COPY data belongs to its Query
      if (!backend) return
      const socket = backend.socket
      // The frames of one statement (Parse, Bind, Describe, Execute, Sync) arrive in one tick: one write.
      if (socket.writableCorked === 0) { socket.cork(); process.nextTick(() => socket.uncork()) }
      let data = m.data
      if (m.type === 'P') {
        expected.push('keep')
        if (data[5] !== 0) { // a named statement
          const { name, text } = parseNameAndText(data)
          parsed.set(name, data)
          if (backend.prepared.get(name) === text) data = PARSE_EMPTY
          else if (!backend.prepared.has(name)) { backend.prepared.set(name, text); parsedNew = true }
        }
      } else if (m.type === 'S' || m.type === 'Q' || m.type === 'F') {
        expected.push('sync') // answered by one ReadyForQuery each
      } else if (m.type === 'B' || m.type === 'D' || m.type === 'C') {
        const name = statementNamed(m)
        if (name && m.type === 'C') { parsed.delete(name); backend.prepared.delete(name) }
        else if (name && !backend.prepared.has(name) && parsed.has(name)) {
          // Parsed by this session on another backend: parse it here first, silently.
          const parse = /** @type {Buffer} */ (parsed.get(name))
          backend.prepared.set(name, parseNameAndText(parse).text)
          parsedNew = true
          expected.push('drop')
          socket.write(parse)
        }
      }
      socket.write(data)
    }
    const take = () => {
      if (waiting || !pool) return
      waiting = true
      pool.acquire((b, error) => {
        waiting = false
        if (!b) return refuse(/** @type {Buffer} */ (error))
        if (closed) return /** @type {BackendPool} */ (pool).release(b)
        backend = b
        b.owner = fromBackend
        b.onClose = () => { backend = null; shutdown(1011, 'database connection lost') }
        const q = queue
        queue = []
        q.forEach(forward)
      })
    }

    /** A message of a pooled session; false once the session is over. @param {PgMessage} m */
    const handle = (m) => {
      if (m.type === 'p') return true // a password pipelined after the start-up: the pool authenticates
      if (m.type === 'X') { shutdown(); return false } // Terminate: never reaches a pooled backend
      if (backend) forward(m)
      else { queue.push(m); take() }
      return true
    }

    /** The session's start-up: pooled (answered here), or direct (piped to its own connection). */
    const start = (/** @type {Buffer} */ startup) => {
      const serial = serialize(address)
      const key = `${address}\0${startup.toString('base64')}`
      pool = pools.get(key) ?? null
      if (!pool) {
        pool = new BackendPool({ host, port, startup, max: serial ? 1 : poolMax, idleMs: serial ? 2 ** 31 - 1 : idleMs, connectTimeoutMs, acquireTimeoutMs })
        pools.set(key, pool)
      }
      const p = pool
      const greet = () => {
        phase = 'ready'
        send(Buffer.concat([AUTH_OK, /** @type {Buffer} */ (p.params), message('K', Buffer.concat([int32(process.pid), int32((Math.random() * 2 ** 31) | 0)])), READY_IDLE]))
        const early = queue
        queue = []
        for (const m of early) if (!handle(m)) return
      }
      if (p.mode === 'pooled') return greet()
      if (p.mode === 'direct') return pipe(net.connect({ host, port }), startup, null)
      // First sessions of this target: one backend tells whether it can be pooled.
      const probe = p.probing
      p.probe().then((result) => {
        if (result.direct && probe) return start(startup) // another session's probe: open our own
        if (closed) return result.direct?.socket.destroy()
        if (result.direct) return pipe(result.direct.socket, null, result.direct.first)
        if (result.error) return refuse(result.error)
        greet()
      })
    }

    /** A direct session: the client and its own TCP connection, bytes copied both ways. */
    const pipe = (/** @type {net.Socket} */ socket, /** @type {Buffer|null} */ startup, /** @type {Buffer|null} */ first) => {
      phase = 'direct'
      direct = socket
      socket.setNoDelay(true)
      socket.on('data', (chunk) => send(chunk))
      socket.on('close', () => shutdown())
      socket.on('error', (err) => shutdown(1011, `upstream: ${err.message}`.slice(0, 120)))
      if (startup) socket.write(startup)
      if (first) send(first)
      for (const m of queue) socket.write(m.data)
      queue = []
    }

    client.listen((chunk) => {
      if (closed) return
      if (phase === 'direct' && direct) { direct.write(chunk); return }
      for (const m of fromClient(chunk)) {
        if (m.type === '') {
          const code = m.data.length >= 8 ? m.data.readInt32BE(4) : 0
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) { send(Buffer.from('N')); continue }
          if (code === CANCEL_REQUEST) { shutdown(); return }
          start(Buffer.from(m.data))
          continue
        }
        if (phase !== 'ready') queue.push(m) // until the start-up is answered or the socket attached
        else if (!handle(m)) return
      }
    }, (code) => shutdown(code))
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve(undefined))
  })
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  let tcpPort = null
  if (tcpServer) {
    const listening = tcpServer
    await new Promise((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(0, '127.0.0.1', () => resolve(undefined))
    })
    tcpPort = /** @type {import('node:net').AddressInfo} */ (listening.address()).port
  }

  return {
    port,
    tcpPort,
    stats: () => {
      let backends = 0
      let idle = 0
      for (const p of pools.values()) { backends += p.all.size; idle += p.idle.length }
      return { backends, idle }
    },
    close: async () => {
      for (const shutdown of [...open]) shutdown(1001, 'proxy closing')
      for (const p of pools.values()) p.close()
      for (const ws of wss.clients) ws.terminate()
      wss.close()
      for (const socket of tcpSockets) socket.destroy()
      if (tcpServer) { const closing = tcpServer; await new Promise((resolve) => closing.close(() => resolve(undefined))) }
      await new Promise((resolve) => {
        server.close(() => resolve(undefined))
        server.closeAllConnections()
      })
    },
  }
}
