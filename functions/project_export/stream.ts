// Writing the export archive as it is made: tar members go through fflate's streaming Gzip straight
// into an R2 multipart upload, so what the Worker holds is one part (5 MiB) and the member being written,
// not the archive. Uploads and LFS objects are copied from their R2 objects chunk by chunk.
import { Gzip } from "fflate";
import { TAR_END, tarEntryHeader, tarPadding } from "../shared/git/pure/tar";

/** R2's smallest part (all parts but the last must be at least this and of one size). */
export const PART_SIZE = 5 * 1024 * 1024;

const gzipMetadata = { httpMetadata: { contentType: "application/gzip" } };

/**
 * The archive's bytes into R2 at `key`: a plain put when the whole archive fits one part, else a
 * multipart upload of equal parts. `abort` leaves nothing behind.
 */
export class R2ArchiveSink {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private upload: R2MultipartUpload | null = null;
  private parts: R2UploadedPart[] = [];
  /** Compressed bytes written so far. */
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly partSize = PART_SIZE,
  ) {}

  push(chunk: Uint8Array) {
    if (chunk.length === 0) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.size += chunk.length;
  }

  /** Sends every full part that is buffered. */
  async flush(): Promise<void> {
    while (this.pendingBytes >= this.partSize) {
      const part = this.take(this.partSize);
      this.upload ??= await this.bucket.createMultipartUpload(this.key, gzipMetadata);
      this.parts.push(await this.upload.uploadPart(this.parts.length + 1, part));
    }
  }

  async close(): Promise<void> {
    await this.flush();
    const rest = this.take(this.pendingBytes);
    if (!this.upload) {
      await this.bucket.put(this.key, rest, gzipMetadata);
      return;
    }
    if (rest.length > 0) this.parts.push(await this.upload.uploadPart(this.parts.length + 1, rest));
    await this.upload.complete(this.parts);
  }

  async abort(): Promise<void> {
    await this.upload?.abort().catch(() => undefined);
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** The first `n` buffered bytes as one array. */
  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.pending[0];
      const want = n - at;
      if (head.length <= want) {
        out.set(head, at);
        at += head.length;
        this.pending.shift();
      } else {
        out.set(head.subarray(0, want), at);
        this.pending[0] = head.subarray(want);
        at += want;
      }
    }
    this.pendingBytes -= n;
    return out;
  }
}

/** A tar.gz written member by member into a sink. */
export class TarGzWriter {
  private readonly gzip: Gzip;

  constructor(
    private readonly sink: R2ArchiveSink,
    private readonly mtime: number,
  ) {
    this.gzip = new Gzip({ level: 6 }, (chunk) => sink.push(chunk));
  }

  private async write(bytes: Uint8Array, final = false) {
    this.gzip.push(bytes, final);
    await this.sink.flush();
  }

  /** A member whose body is in memory. */
  async file(path: string, body: Uint8Array[]): Promise<void> {
    const size = body.reduce((n, b) => n + b.length, 0);
    await this.write(tarEntryHeader({ path, kind: "file", size }, this.mtime));
    for (const b of body) await this.write(b);
    await this.write(tarPadding(size));
  }

  /**
   * A member read from a stream of `size` bytes (an R2 object's body). A stream of another length
   * would corrupt the tar, so it throws instead.
   */
  async stream(path: string, size: number, body: ReadableStream<Uint8Array>): Promise<void> {
    await this.write(tarEntryHeader({ path, kind: "file", size }, this.mtime));
    let read = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.length;
      if (read > size) break;
      await this.write(value);
    }
    if (read !== size) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`${path}: the stored object has ${read > size ? "more" : "fewer"} than its ${size} bytes`);
    }
    await this.write(tarPadding(size));
  }

  /** The tar's end, the gzip trailer, and the R2 object completed. */
  async close(): Promise<void> {
    await this.write(TAR_END, true);
    await this.sink.close();
  }
}
