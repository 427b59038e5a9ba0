// Blob bytes in R2 (`BLOBS`). An upload's bytes arrive as parts of at most 8 MiB
// (`registry/uploads/<uuid>/<n>`), so no request holds more than one part in memory whatever the
// layer's size or whether the client sends a length; finishing the upload streams the parts once
// through SHA-256 into the blob's object (`registry/blobs/sha256/<hex>`), which every repository
// linking that digest shares. A digest that does not match removes what was written. Objects of blobs
// nothing references any more are deleted by the garbage collector only (gc.ts).

export const PART_BYTES = 8 * 1024 * 1024;
/** Only `sha256:` digests are produced and accepted (the distribution spec's canonical algorithm). */
export const DIGEST = /^sha256:[0-9a-f]{64}$/;

export const blobKey = (digest: string) => `registry/blobs/${digest.replace(":", "/")}`;
const partKey = (uuid: string, n: number) => `registry/uploads/${uuid}/${n}`;

/** Writes `body` as parts numbered from `first`; returns their sizes (none for an empty body). */
export async function writeParts(bucket: R2Bucket, uuid: string, first: number, body: ReadableStream<Uint8Array> | null): Promise<number[]> {
  const sizes: number[] = [];
  if (!body) return sizes;
  const reader = body.getReader();
  let buffer = new Uint8Array(PART_BYTES);
  let filled = 0;
  const flush = async () => {
    if (!filled) return;
    await bucket.put(partKey(uuid, first + sizes.length), buffer.subarray(0, filled));
    sizes.push(filled);
    buffer = new Uint8Array(PART_BYTES);
    filled = 0;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let offset = 0;
      while (offset < value.byteLength) {
        const take = Math.min(PART_BYTES - filled, value.byteLength - offset);
        buffer.set(value.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === PART_BYTES) await flush();
      }
    }
    await flush();
  } catch (error) {
    await removeParts(bucket, uuid, first + sizes.length + 1, first);
    throw error;
  }
  return sizes;
}

/** Removes parts `from` (inclusive) up to `to` (exclusive) of an upload. */
export async function removeParts(bucket: R2Bucket, uuid: string, to: number, from = 0): Promise<void> {
  const keys = [];
  for (let n = from; n < to; n++) keys.push(partKey(uuid, n));
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Turns an upload's parts into the blob `digest`: reads each part once, hashing it and (unless the
 * blob is stored already) writing it into the blob's object. True when the content matches `digest`;
 * otherwise the object written is deleted. The parts are removed either way.
 */
export async function assembleBlob(bucket: R2Bucket, uuid: string, parts: number[], digest: string): Promise<boolean> {
  const total = parts.reduce((a, b) => a + b, 0);
  const key = blobKey(digest);
  const exists = (await bucket.head(key)) !== null;
  const hasher = new crypto.DigestStream("SHA-256");
  const hashWriter = hasher.getWriter();
  let put: Promise<unknown> | null = null;
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  if (!exists) {
    const stream = new FixedLengthStream(total);
    put = bucket.put(key, stream.readable);
    writer = stream.writable.getWriter();
  }
  try {
    for (let n = 0; n < parts.length; n++) {
      const object = await bucket.get(partKey(uuid, n));
      if (!object) throw new Error(`upload ${uuid} lost part ${n}`);
      const bytes = new Uint8Array(await object.arrayBuffer());
      await hashWriter.write(bytes);
      if (writer) await writer.write(bytes);
    }
    await hashWriter.close();
    if (writer) await writer.close();
    if (put) await put;
  } catch (error) {
    if (writer) await writer.abort(error).catch(() => {});
    await removeParts(bucket, uuid, parts.length);
    throw error;
  }
  const matches = `sha256:${hex(await hasher.digest)}` === digest;
  if (!matches && !exists) await bucket.delete(key);
  await removeParts(bucket, uuid, parts.length);
  return matches;
}
