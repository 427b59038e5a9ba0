// Test side: large deterministic payloads and their digests, for the upload tests.

/** `n` deterministic bytes (xorshift32 from `seed`), the same in every run. */
export function bytesOf(n: number, seed: number): Uint8Array {
  const words = new Uint32Array(Math.ceil(n / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer, 0, n);
}

/** The hex digest of `bytes` (`algorithm` as WebCrypto names it: "SHA-256", "SHA-1", "MD5"). */
export async function digestHex(algorithm: string, bytes: ArrayBuffer | Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest(algorithm, bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
