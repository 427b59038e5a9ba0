// Writing the export archive as it is made: tar members go through fflate's streaming Gzip straight
// into an R2 multipart upload (shared/r2_parts.ts), so what the Worker holds is one part (5 MiB) and the member being written,
// not the archive. Uploads and LFS objects are copied from their R2 objects chunk by chunk.
import { Gzip } from "fflate";
import { TAR_END, tarEntryHeader, tarPadding } from "../shared/git/pure/tar";
import { R2PartWriter } from "../shared/r2_parts";

export { PART_SIZE } from "../shared/r2_parts";

const gzipMetadata = { httpMetadata: { contentType: "application/gzip" } };

/** The archive's bytes into R2 at `key` (shared/r2_parts.ts), as `application/gzip`. */
export class R2ArchiveSink extends R2PartWriter {
  constructor(bucket: R2Bucket, key: string, partSize?: number) {
    super(bucket, key, { ...gzipMetadata, partSize });
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
