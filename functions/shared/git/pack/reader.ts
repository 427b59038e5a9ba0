// A buffered reader over a byte stream (a request body) or one array: exact reads for pkt-lines and
// pack headers, and direct access to the buffered bytes for inflating without copying. Bytes are
// handed to `observer` (the pack checksum) as they are consumed.

export type ByteObserver = (bytes: Uint8Array) => void;

export class ByteReader {
  private chunk: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private done = false;
  private readonly stream: ReadableStreamDefaultReader<Uint8Array> | null;
  /** Bytes consumed so far. */
  offset = 0;
  observer: ByteObserver | null = null;
  /**
   * The offset past which consuming throws `limit.error()` (a pack's size limit). Only consumed bytes
   * count, and the buffer holds at most one chunk beyond them, so nothing much past the limit is kept.
   */
  limit: { end: number; error: () => Error } | null = null;

  constructor(source: ReadableStream<Uint8Array> | Uint8Array | null) {
    if (source === null) {
      this.stream = null;
      this.done = true;
    } else if (source instanceof Uint8Array) {
      this.stream = null;
      this.chunk = source;
      this.done = true;
    } else {
      this.stream = source.getReader();
    }
  }

  /** Reads more input into the buffer; false at the end of input. */
  private async fill(): Promise<boolean> {
    while (!this.done) {
      const { value, done } = await this.stream!.read();
      if (done) {
        this.done = true;
        break;
      }
      if (!value || value.length === 0) continue;
      const rest = this.chunk.length - this.pos;
      if (rest === 0) this.chunk = value;
      else {
        const joined = new Uint8Array(rest + value.length);
        joined.set(this.chunk.subarray(this.pos));
        joined.set(value, rest);
        this.chunk = joined;
      }
      this.pos = 0;
      return true;
    }
    return false;
  }

  /** The bytes buffered now, reading more first when none are; empty only at the end of input. */
  async available(): Promise<Uint8Array> {
    if (this.pos >= this.chunk.length) {
      if (!(await this.fill())) return new Uint8Array(0);
    }
    return this.chunk.subarray(this.pos);
  }

  /** Marks `n` buffered bytes as read. */
  consume(n: number): void {
    if (n <= 0) return;
    if (this.limit && this.offset + n > this.limit.end) throw this.limit.error();
    const bytes = this.chunk.subarray(this.pos, this.pos + n);
    if (this.observer) this.observer(bytes);
    this.pos += n;
    this.offset += n;
  }

  /** Reads the rest of the input and drops it, one chunk at a time (nothing is kept or observed). */
  async drain(): Promise<void> {
    this.limit = null;
    this.observer = null;
    this.pos = this.chunk.length;
    while (await this.fill()) this.pos = this.chunk.length;
  }

  /** Exactly `n` bytes (a copy only when they span chunks). Throws at a premature end. */
  async readExact(n: number): Promise<Uint8Array> {
    const bytes = await this.readUpTo(n);
    if (bytes.length < n) throw new TruncatedInput();
    return bytes;
  }

  /** Up to `n` bytes: fewer only at the end of input. */
  async readUpTo(n: number): Promise<Uint8Array> {
    while (this.chunk.length - this.pos < n) {
      if (!(await this.fill())) break;
    }
    const take = Math.min(n, this.chunk.length - this.pos);
    const bytes = this.chunk.subarray(this.pos, this.pos + take);
    this.consume(take);
    return bytes;
  }

  async readByte(): Promise<number> {
    if (this.pos >= this.chunk.length && !(await this.fill())) throw new TruncatedInput();
    const byte = this.chunk[this.pos];
    this.consume(1);
    return byte;
  }

  /** Whether input remains (reads ahead when the buffer is empty). */
  async atEnd(): Promise<boolean> {
    return (await this.available()).length === 0;
  }

  /** Stops reading the underlying stream (the rest of a body is not needed). */
  async cancel(): Promise<void> {
    if (this.stream && !this.done) {
      this.done = true;
      await this.stream.cancel().catch(() => undefined);
    }
  }
}

export class TruncatedInput extends Error {
  constructor() {
    super("unexpected end of input");
  }
}
