import { describe, expect, it } from "vitest";
import { MultipartError, MultipartReader, multipartBoundary } from "../../functions/kernel/multipart";

const B = "XyZ-boundary-42";
const enc = (s: string) => new TextEncoder().encode(s);

/** The body in chunks of `size` bytes. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>) {
  const reader = new MultipartReader(body, B);
  const parts: { name: string; filename: string | null; contentType: string | null; bytes: number[] }[] = [];
  for (let head = await reader.next(); head; head = await reader.next()) {
    const bytes: number[] = [];
    for (let c = await reader.chunk(); c; c = await reader.chunk()) bytes.push(...c);
    parts.push({ ...head, bytes });
  }
  return parts;
}

// Bytes that look like the start of a delimiter without being one.
const tricky = new Uint8Array([0, 13, 10, 45, 45, 88, 121, 13, 10, 45, 13, 13, 10, 255, 13, 10, 45, 45, 88, 121, 90, 45, 98]);
const body = new Uint8Array([
  ...enc(`preamble to ignore\r\n--${B}\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc\r\n`),
  ...enc(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a \\"b\\".zip"\r\nContent-Type: application/zip\r\n\r\n`),
  ...tricky,
  ...enc(`\r\n--${B}  \r\ncontent-disposition: form-data; name="u"; filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n\r\n`),
  ...enc(`\r\n--${B}\r\nContent-Disposition: form-data; name="h[k]"\r\n\r\n1 day\r\n--${B}--\r\nepilogue`),
]);

describe("MultipartReader", () => {
  it("reads every part whatever the chunk size, delimiter look-alikes included", async () => {
    const expected = [
      { name: "token", filename: null, contentType: null, bytes: [...enc("abc")] },
      { name: "file", filename: 'a "b".zip', contentType: "application/zip", bytes: [...tricky] },
      { name: "u", filename: "été.txt", contentType: null, bytes: [] },
      { name: "h[k]", filename: null, contentType: null, bytes: [...enc("1 day")] },
    ];
    for (const size of [1, 2, 3, 7, 19, 64, body.length]) expect(await readAll(chunked(body, size)), `chunks of ${size}`).toEqual(expected);
  });

  it("fails on a body cut inside a part, after a delimiter or without any delimiter", async () => {
    for (const end of [40, 120, body.length - 12]) await expect(readAll(chunked(body.slice(0, end), 16))).rejects.toBeInstanceOf(MultipartError);
    await expect(readAll(chunked(enc(`--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${B}--`), 8))).rejects.toBeInstanceOf(MultipartError);
    // A body with no delimiter at all is a preamble that never ends.
    await expect(readAll(chunked(enc("just bytes"), 4))).rejects.toBeInstanceOf(MultipartError);
  });

  it("skips a part the caller does not read", async () => {
    const reader = new MultipartReader(chunked(body, 5), B);
    const names: string[] = [];
    for (let head = await reader.next(); head; head = await reader.next()) names.push(head.name);
    expect(names).toEqual(["token", "file", "u", "h[k]"]);
  });
});

describe("multipartBoundary", () => {
  it("reads quoted and bare boundaries of multipart/form-data only", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${B}`)).toBe(B);
    expect(multipartBoundary(`multipart/form-data; charset=utf-8; boundary="a b"`)).toBe("a b");
    expect(multipartBoundary("multipart/form-data")).toBeNull();
    expect(multipartBoundary("application/json; boundary=x")).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
  });
});
