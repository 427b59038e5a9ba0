import { connect } from "cloudflare:sockets";
import { bool, concat, int, intValue, readTlv, seq, str, text, tlv, type Ber } from "./ber";
import { encodeFilter } from "./filter";
import type { LdapServer } from "./config";

/**
 * A small LDAPv3 client (RFC 4511) over a Workers TCP socket (`connect()` from `cloudflare:sockets`):
 * simple bind, subtree search with a filter, unbind. One connection per unit of work, requests one at a
 * time. LDAPS (`encryption: "simple_tls"`) is the socket's TLS; StartTLS is not built.
 */
export type LdapEntry = { dn: string; attributes: Record<string, string[]> };

export class LdapError extends Error {
  constructor(message: string, readonly resultCode?: number) {
    super(message);
  }
}

/** How long one LDAP exchange may take before the unit of work fails (GitLab's default `timeout: 10`). */
const TIMEOUT_MS = 10_000;

const SUCCESS = 0;
const SIZE_LIMIT_EXCEEDED = 4;
const NO_SUCH_OBJECT = 32;

export class LdapConnection {
  private buffer: Uint8Array = new Uint8Array(0);
  private nextId = 1;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;

  private constructor(private readonly socket: ReturnType<typeof connect>) {
    this.reader = socket.readable.getReader();
    this.writer = socket.writable.getWriter();
  }

  static async open(server: LdapServer): Promise<LdapConnection> {
    const socket = connect({ hostname: server.host, port: server.port }, { secureTransport: server.encryption === "simple_tls" ? "on" : "off", allowHalfOpen: false });
    await withTimeout(socket.opened, `LDAP: could not connect to ${server.host}:${server.port}`);
    return new LdapConnection(socket);
  }

  /** BindRequest (simple); an anonymous bind when `dn` is empty. */
  async bind(dn: string, password: string): Promise<void> {
    const id = await this.send(seq([int(3), str(dn), str(password, 0x80)], 0x60));
    const response = await this.receive(id);
    checkResult(response, "bind");
  }

  /** SearchRequest over the subtree of `base`; answers the entries (sizeLimitExceeded keeps what came). */
  async search(opts: { base: string; filter: string; attributes: string[]; sizeLimit?: number }): Promise<LdapEntry[]> {
    const request = seq(
      [
        str(opts.base),
        int(2, 0x0a), // scope: wholeSubtree
        int(0, 0x0a), // derefAliases: never
        int(opts.sizeLimit ?? 0),
        int(10), // timeLimit (seconds)
        bool(false),
        encodeFilter(opts.filter),
        seq(opts.attributes.map((a) => str(a))),
      ],
      0x63,
    );
    const id = await this.send(request);
    const entries: LdapEntry[] = [];
    for (;;) {
      const op = await this.receive(id);
      if (op.tag === 0x64) entries.push(readEntry(op));
      else if (op.tag === 0x65) {
        const code = intValue(op.children?.[0]);
        if (code === SUCCESS || code === SIZE_LIMIT_EXCEEDED) return entries;
        if (code === NO_SUCH_OBJECT) return [];
        throw new LdapError(`LDAP search failed: ${code} ${text(op.children?.[2])}`.trim(), code);
      }
      // SearchResultReference (0x73, a referral): not followed.
    }
  }

  /** UnbindRequest, then the socket closes. Errors are ignored: the work is done. */
  async close(): Promise<void> {
    try {
      await this.send(tlv(0x42, new Uint8Array(0)));
    } catch {
      // the server may have closed first
    }
    try {
      await this.socket.close();
    } catch {
      // already closed
    }
  }

  private async send(op: Uint8Array): Promise<number> {
    const id = this.nextId++;
    await withTimeout(this.writer.write(seq([int(id), op])), "LDAP: write timed out");
    return id;
  }

  /** The protocol op of the next message for `id` (other ids, such as a notice of disconnection, fail). */
  private async receive(id: number): Promise<Ber> {
    for (;;) {
      const read = readTlv(this.buffer);
      if (read) {
        this.buffer = this.buffer.slice(read.end);
        const [messageId, op] = read.node.children ?? [];
        if (!op) throw new LdapError("LDAP: malformed message");
        if (intValue(messageId) !== id) throw new LdapError(`LDAP: unexpected message ${intValue(messageId)}: ${text(op.children?.[2])}`.trim());
        return op;
      }
      const chunk = await withTimeout(this.reader.read(), "LDAP: the server did not answer in time");
      if (chunk.done) throw new LdapError("LDAP: the server closed the connection");
      this.buffer = concat([this.buffer, chunk.value as Uint8Array]);
    }
  }
}

function checkResult(op: Ber, what: string) {
  const code = intValue(op.children?.[0]);
  if (code !== SUCCESS) throw new LdapError(`LDAP ${what} failed: ${code} ${text(op.children?.[2])}`.trim(), code);
}

function readEntry(op: Ber): LdapEntry {
  const [name, attrs] = op.children ?? [];
  const attributes: Record<string, string[]> = {};
  for (const attr of attrs?.children ?? []) {
    const [type, values] = attr.children ?? [];
    attributes[text(type).toLowerCase()] = (values?.children ?? []).map((v) => text(v));
  }
  return { dn: text(name), attributes };
}

async function withTimeout<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new LdapError(message)), TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connects and binds as the server's `bind_dn`, runs `work`, and unbinds whatever happens. */
export async function withLdap<T>(server: LdapServer, work: (ldap: LdapConnection) => Promise<T>): Promise<T> {
  const ldap = await LdapConnection.open(server);
  try {
    await ldap.bind(server.bindDn, server.password);
    return await work(ldap);
  } finally {
    await ldap.close();
  }
}
