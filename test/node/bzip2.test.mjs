// The hand-written bzip2 compressor (functions/shared/git/pure/bzip2.ts), checked against the system's
// decoder: Debian's `bzip2 -d` (libbzip2 1.0.8), which verifies every block CRC and the stream CRC.
// Workers' test pool cannot start processes, so this runs under Node: the module is bundled with
// esbuild and imported from memory. test/repository/archive.test.ts checks that the tar.bz2 route
// sends exactly this encoder's output for the tar.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import fc from "fast-check";

const entry = fileURLToPath(new URL("../../functions/shared/git/pure/bzip2.ts", import.meta.url));
const bundle = await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", write: false });
const { Bzip2Encoder, bzip2Stream } = await import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString("base64")}`);

/** Compresses `input` fed in the given chunk sizes (cycled). */
function compress(input, chunkSizes = [input.length || 1]) {
  const encoder = new Bzip2Encoder();
  const parts = [];
  for (let at = 0, k = 0; at < input.length; k++) {
    const size = Math.max(1, chunkSizes[k % chunkSizes.length]);
    parts.push(encoder.push(input.subarray(at, at + size)));
    at += size;
  }
  parts.push(encoder.finish());
  return Buffer.concat(parts);
}

/** The system's decoder; fails the test on any error it reports. */
function bunzip2(compressed) {
  const result = spawnSync("bzip2", ["-d", "-c"], { input: compressed, maxBuffer: 64 << 20 });
  assert.equal(result.status, 0, `bzip2 -d: ${result.stderr}`);
  return new Uint8Array(result.stdout);
}

const roundTrips = (input, chunks) => assert.deepEqual(bunzip2(compress(input, chunks)), input);

describe("bzip2 compressor", () => {
  it("writes the empty stream bzip2 writes, and small inputs bzip2 -d reads", () => {
    assert.deepEqual(compress(new Uint8Array()), Buffer.from("425a683917724538509000000000", "hex"));
    roundTrips(new Uint8Array([0]));
    roundTrips(new TextEncoder().encode("hello hello hello\n"));
  });

  it("round-trips runs at the RLE boundaries (3, 4, 5, 255, 256 and 259 equal bytes) and every byte value", () => {
    for (const n of [1, 3, 4, 5, 251, 254, 255, 256, 259, 260, 1000]) roundTrips(new Uint8Array(n).fill(0x61), [7]);
    roundTrips(Uint8Array.from({ length: 4096 }, (_, i) => i & 0xff));
    roundTrips(Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
  });

  it("splits input over 900 kB into blocks, compressing each as it fills (random, periodic and constant data)", () => {
    let seed = 1;
    const random = Uint8Array.from({ length: 2_000_000 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
    const encoder = new Bzip2Encoder();
    const first = encoder.push(random.subarray(0, 1_000_000));
    // One full block came out before the input ended (random bytes hardly compress).
    assert.ok(first.length > 850_000, `first push gave ${first.length} bytes`);
    const rest = [encoder.push(random.subarray(1_000_000)), encoder.finish()];
    assert.deepEqual(bunzip2(Buffer.concat([first, ...rest])), random);
    roundTrips(new TextEncoder().encode("abc".repeat(700_000)), [65_536]);
    roundTrips(new Uint8Array(3_000_000), [1_000_000]); // runs of 255 across block boundaries
  });

  it("streams through bzip2Stream()", async () => {
    const input = new TextEncoder().encode("streamed line\n".repeat(100_000));
    const stream = new Blob([input.subarray(0, 500_000), input.subarray(500_000)]).stream().pipeThrough(bzip2Stream());
    assert.deepEqual(bunzip2(Buffer.from(await new Response(stream).arrayBuffer())), input);
  });

  it("round-trips random inputs (with long runs and empty input) in random chunks through bzip2 -d", () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 2000 })).map(([b, n]) => new Uint8Array(n).fill(b)),
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 500 })).map(([unit, n]) => {
        const out = new Uint8Array(unit.length * n);
        for (let i = 0; i < n; i++) out.set(unit, i * unit.length);
        return out;
      }),
    );
    const input = fc.array(piece, { maxLength: 12 }).map((pieces) => new Uint8Array(Buffer.concat(pieces)));
    fc.assert(
      fc.property(input, fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 5 }), (bytes, chunks) => {
        roundTrips(bytes, chunks);
      }),
      { numRuns: 200 },
    );
  });
});
