import type { Ctx } from "./env";
import { badRequest, paramsError, tooLarge } from "./errors";
import { decodeQuery, normalizeParams, rejectMalformedBody } from "./params";

/**
 * `multipart/form-data` read while it streams (docs/uploads.md), for the routes whose file may be larger
 * than the 10 MiB the parameter reader (`rawParams`, which buffers the whole body through
 * `Request.formData()`) accepts: job artifacts, package files. Text fields are kept in memory (small, and
 * capped); the one file part is handed to the caller as it arrives, chunk by chunk, and its size limit
 * is enforced while it streams (GitLab's 413), so nothing ever holds the whole file.
 *
 * Hand-written (about 200 lines), see docs/uploads.md: `@remix-run/multipart-parser` yields a part only
 * once its last byte arrived, holding its content in memory; the web-stream parsers that do stream
 * (`@ssttevee/multipart-parser` and its fork) scan every byte twice in JavaScript (27 MB/s measured,
 * 3.7 s of CPU for a 100 MiB artifact); busboy needs Node streams.
 */

const CRLF = new Uint8Array([13, 10]);
const HEADERS_END = new Uint8Array([13, 10, 13, 10]);
/** Rack's limit on one part's header block is larger; 16 KiB is far above anything a client sends. */
const MAX_HEADER_BYTES = 16 * 1024;
/** Text fields (everything but the file) together: they are held in memory. */
const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_PARTS = 1000;

/** The body does not parse as multipart (cut short, no boundary, a malformed part). */
export class MultipartError extends Error {}

export type PartHead = { name: string; filename: string | null; contentType: string | null };

/** The boundary of a `multipart/form-data` content type, or null (Rack reads such a body as no parameters). */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m ? (m[1] ?? m[2]) : null;
  return boundary && boundary.length <= 70 ? boundary : null;
}

/** Boyer-Moore-Horspool search for one needle; the skip table is built once per needle. */
class Needle {
  readonly skip = new Uint32Array(256);
  constructor(readonly bytes: Uint8Array) {
    const m = bytes.length;
    this.skip.fill(m);
    for (let i = 0; i < m - 1; i++) this.skip[bytes[i]] = m - 1 - i;
  }

  indexIn(hay: Uint8Array, from: number): number {
    const { bytes, skip } = this;
    const m = bytes.length;
    const last = bytes[m - 1];
    for (let i = from; i <= hay.length - m; ) {
      const tail = hay[i + m - 1];
      if (tail === last) {
        let j = m - 2;
        while (j >= 0 && hay[i + j] === bytes[j]) j--;
        if (j < 0) return i;
      }
      i += skip[tail];
    }
    return -1;
  }
}

const crlfCrlf = new Needle(HEADERS_END);

/**
 * The parts of one body, in order: `next()` reads the next part's head (skipping what is left of the
 * current part), `chunk()` the current part's bytes. Chunks are views of the request's own buffers,
 * never copied except for the few bytes that may start a delimiter at a chunk's end.
 */
export class MultipartReader {
  private readonly delimiter: Needle;
  private readonly source: ReadableStreamDefaultReader<Uint8Array>;
  /** Unread bytes; starts with CRLF so the first delimiter looks like every other one. */
  private buf: Uint8Array = CRLF;
  private inBody = true;
  private ended = false;
  private parts = 0;

  constructor(body: ReadableStream<Uint8Array>, boundary: string) {
    this.delimiter = new Needle(new TextEncoder().encode(`\r\n--${boundary}`));
    this.source = body.getReader();
    // The preamble (anything before the first delimiter) is read as the body of a part before the first.
  }

  /** Appends the next chunk of the request; false at the end of the body. A broken connection is a parse error. */
  private async pull(): Promise<boolean> {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await this.source.read();
    } catch (error) {
      throw new MultipartError(`the body could not be read: ${(error as Error)?.message ?? error}`);
    }
    if (read.done) return false;
    const chunk = read.value;
    if (this.buf.length === 0) this.buf = chunk;
    else {
      const joined = new Uint8Array(this.buf.length + chunk.length);
      joined.set(this.buf);
      joined.set(chunk, this.buf.length);
      this.buf = joined;
    }
    return true;
  }

  /** The next bytes of the current part, or null at its end. */
  async chunk(): Promise<Uint8Array | null> {
    if (!this.inBody) return null;
    const m = this.delimiter.bytes.length;
    for (;;) {
      const at = this.delimiter.indexIn(this.buf, 0);
      if (at >= 0) {
        const out = this.buf.subarray(0, at);
        this.buf = this.buf.subarray(at + m);
        this.inBody = false;
        return out.length ? out : null;
      }
      // What may begin a delimiter stays behind for the next read.
      const safe = this.buf.length - (m - 1);
      if (safe > 0) {
        const out = this.buf.subarray(0, safe);
        this.buf = this.buf.subarray(safe);
        return out;
      }
      if (!(await this.pull())) throw new MultipartError("the body ended inside a part");
    }
  }

  /** Stops reading the body (after a failure: the rest of it is not wanted). */
  async cancel(): Promise<void> {
    this.ended = true;
    this.inBody = false;
    await this.source.cancel().catch(() => undefined);
  }

  /** The next part's head, or null after the closing delimiter. What is left of the current part is skipped. */
  async next(): Promise<PartHead | null> {
    if (this.ended) return null;
    while ((await this.chunk()) !== null);
    while (this.buf.length < 2) if (!(await this.pull())) throw new MultipartError("the body ended after a delimiter");
    if (this.buf[0] === 45 && this.buf[1] === 45) {
      // `--`: the closing delimiter; the epilogue is not read.
      this.ended = true;
      await this.source.cancel().catch(() => undefined);
      return null;
    }
    if (++this.parts > MAX_PARTS) throw new MultipartError("too many parts");
    // The delimiter line ends with CRLF (after optional transport padding); the head ends with CRLF CRLF,
    // searched from that first CRLF so that a part without headers is found too.
    let end: number;
    while ((end = crlfCrlf.indexIn(this.buf, 0)) < 0) {
      if (this.buf.length > MAX_HEADER_BYTES) throw new MultipartError("a part's headers are too large");
      if (!(await this.pull())) throw new MultipartError("the body ended inside a part's headers");
    }
    const lines = new TextDecoder().decode(this.buf.subarray(0, end)).split("\r\n");
    if (lines[0].trim() !== "") throw new MultipartError("a delimiter line does not end");
    this.buf = this.buf.subarray(end + 4);
    this.inBody = true;
    return partHead(lines.slice(1));
  }
}

function partHead(lines: string[]): PartHead {
  let disposition = "";
  let contentType: string | null = null;
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type") contentType = value;
  }
  const name = dispositionParam(disposition, "name");
  if (name === null) throw new MultipartError("a part has no name");
  const star = dispositionParam(disposition, "filename*");
  const filename = star !== null ? decodeExtValue(star) : dispositionParam(disposition, "filename");
  return { name, filename, contentType };
}

/** One parameter of a Content-Disposition value: quoted (`\"` unescaped, as curl and Rack) or a token. */
function dispositionParam(value: string, key: string): string | null {
  const escaped = key.replace(/[*]/g, "\\*");
  const m = new RegExp(`(?:^|;)\\s*${escaped}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(value);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2].trim();
}

/** RFC 5987 `UTF-8''name%20x` (Rack reads `filename*` this way). */
function decodeExtValue(value: string): string {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  try {
    return decodeURIComponent(m ? m[2] : value);
  } catch {
    return m ? m[2] : value;
  }
}

/** The file part as the caller receives it: its head, and its bytes as they arrive (the limit enforced). */
export type StreamedFile = PartHead & { chunks: AsyncIterable<Uint8Array> };

export type StreamedForm<T> = {
  /** The query string's parameters and every text field, Rack-nested, as `rawParams` would give them. */
  fields: Record<string, unknown>;
  /** What `onFile` returned, or null when the body had no part named `file`. */
  file: T | null;
};

/**
 * Reads a `multipart/form-data` request, streaming the part named `opts.file` through `opts.onFile`
 * (which receives the text fields read before it: a token sent first is checked before any byte is
 * stored) and keeping every other field in memory. A file over `opts.limit` bytes is GitLab's 413 the
 * moment its bytes pass the limit; a body that does not parse (cut short included) is Grape's 400 for
 * an unreadable multipart body. When anything fails after `onFile` ran, `opts.onFailure` gets its result
 * so that the caller removes what it stored. A body that is not multipart reads as no fields (Rack).
 */
export async function streamForm<T>(
  c: Ctx,
  opts: {
    file: string;
    limit: number;
    onFile: (file: StreamedFile, fieldsSoFar: Record<string, unknown>) => Promise<T>;
    onFailure?: (stored: T) => Promise<void>;
  },
): Promise<StreamedForm<T>> {
  const at = c.req.url.indexOf("?");
  const query = at < 0 ? {} : decodeQuery(c.req.url.slice(at + 1).replace(/#.*$/, ""));
  const boundary = multipartBoundary(c.req.header("content-type"));
  const body = c.req.raw.body;
  if (!boundary || !body) return { fields: query, file: null };
  const reader = new MultipartReader(body, boundary);
  const fields: Record<string, unknown> = {};
  let fieldBytes = 0;
  let stored: { value: T } | null = null;
  try {
    for (let head = await reader.next(); head; head = await reader.next()) {
      if (head.name === opts.file && head.filename !== null && !stored) {
        rejectMalformedBody(head.filename);
        const file: StreamedFile = { ...head, chunks: limited(reader, opts.limit) };
        stored = { value: await opts.onFile(file, { ...query, ...fields }) };
        // The callback must have read every byte: what it left would otherwise be skipped unseen.
        if ((await reader.chunk()) !== null) throw new Error("the file part was not read to its end");
        continue;
      }
      let text = "";
      const decoder = new TextDecoder();
      for (let chunk = await reader.chunk(); chunk; chunk = await reader.chunk()) {
        fieldBytes += chunk.length;
        if (fieldBytes > MAX_FIELD_BYTES) throw tooLarge();
        text += decoder.decode(chunk, { stream: true });
      }
      text += decoder.decode();
      normalizeParams(fields, head.name, text);
    }
    rejectMalformedBody(fields);
  } catch (error) {
    await reader.cancel();
    if (stored && opts.onFailure) await opts.onFailure(stored.value).catch(() => undefined);
    if (error instanceof MultipartError) throw paramsError("Empty message body supplied with multipart/form-data content-type");
    throw error;
  }
  return { fields: { ...query, ...fields }, file: stored ? stored.value : null };
}

/** The current part's bytes, failing with 413 once more than `limit` bytes have passed. */
async function* limited(reader: MultipartReader, limit: number): AsyncIterable<Uint8Array> {
  let size = 0;
  for (let chunk = await reader.chunk(); chunk; chunk = await reader.chunk()) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    yield chunk;
  }
}

/**
 * A raw request body (the generic package `PUT`, whose body is the file) as it arrives, failing with
 * GitLab's 413 once more than `limit` bytes have passed; a declared length over it is refused first.
 */
export async function* streamBody(c: Ctx, limit: number): AsyncIterable<Uint8Array> {
  const declared = c.req.header("content-length") === undefined ? null : Number(c.req.header("content-length"));
  if (declared !== null && declared > limit) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return;
  const reader = body.getReader();
  let size = 0;
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch {
        throw badRequest("the body could not be read to its end");
      }
      const { done, value } = read;
      // A body shorter than its declared length was cut (the client went away): never a whole file.
      if (done && declared !== null && size !== declared) throw badRequest("the body could not be read to its end");
      if (done) return;
      size += value.length;
      if (size > limit) throw tooLarge();
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
