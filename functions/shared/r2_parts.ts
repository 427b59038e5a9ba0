// Bytes written into one R2 object as they come, whatever their total (docs/uploads.md): `put` takes a
// stream only with a known length, so anything larger than one part goes through R2's multipart upload,
// in parts of one fixed size (R2 requires every part but the last to be the same size, at least 5 MiB).
// What the Worker holds is at most one part. The project and group exports write their tar.gz through it,
// and the streamed uploads (job artifacts, package files) their file parts.

/** R2's smallest part (all parts but the last must be at least this and of one size). */
export const PART_SIZE = 5 * 1024 * 1024;

/**
 * Bytes into R2 at `key`: a plain put when everything fits one part, else a multipart upload of
 * equal parts. Nothing is visible under `key` before `close()`; `abort()` leaves nothing behind.
 */
export class R2PartWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private upload: R2MultipartUpload | null = null;
  private parts: R2UploadedPart[] = [];
  /** Bytes written so far. */
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly options: { httpMetadata?: R2HTTPMetadata; partSize?: number } = {},
  ) {}

  private get partSize() {
    return this.options.partSize ?? PART_SIZE;
  }

  private get putOptions() {
    return this.options.httpMetadata ? { httpMetadata: this.options.httpMetadata } : undefined;
  }

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
      this.upload ??= await this.bucket.createMultipartUpload(this.key, this.putOptions);
      this.parts.push(await this.upload.uploadPart(this.parts.length + 1, part));
    }
  }

  /**
   * Writes every chunk of `source`, sending each part once full; the last (short) part stays buffered
   * until `close()`. On any failure (the source's included) the upload is aborted and the error rethrown.
   */
  async drain(source: AsyncIterable<Uint8Array>, each?: (chunk: Uint8Array) => Promise<void> | void): Promise<void> {
    try {
      for await (const chunk of source) {
        if (each) await each(chunk);
        this.push(chunk);
        await this.flush();
      }
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Sends what is left and makes the object visible under its key. */
  async close(): Promise<void> {
    await this.flush();
    const rest = this.take(this.pendingBytes);
    if (!this.upload) {
      await this.bucket.put(this.key, rest, this.putOptions);
      return;
    }
    if (rest.length > 0) this.parts.push(await this.upload.uploadPart(this.parts.length + 1, rest));
    await this.upload.complete(this.parts);
  }

  async abort(): Promise<void> {
    await this.upload?.abort().catch(() => undefined);
    this.upload = null;
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
