// A streaming bzip2 compressor (the `.bz2` format libbzip2 1.0 writes and `bzip2 -d` reads), for the
// `tar.bz2` repository archive. Hand-written: Workers have no bzip2 (CompressionStream knows gzip and
// deflate only), and npm has no maintained compressor that runs there (compressjs needs an AMD loader,
// the WASM builds of libbzip2 compress a whole buffer at once). It follows libbzip2's compress.c:
//   - input is run-length encoded (runs of 4 to 255 bytes become 4 bytes and a count) into blocks of
//     at most 900 000 - 19 bytes (level 9, as `git archive`'s `bzip2 -c` sends by default);
//   - each block is sorted (Burrows-Wheeler: the block's rotations, by prefix doubling), move-to-front
//     coded with runs of zeros in bijective base 2 (RUNA/RUNB), and Huffman coded with 2 to 6 tables
//     chosen per group of 50 symbols (selectors), tables refined four times as libbzip2 does;
//   - the block CRC (CRC-32, MSB first, over the block's original bytes) and the stream CRC end it.
// A block is compressed as soon as it is full, so memory is one block and its sort, never the input.

/** Bytes of run-length-encoded input a level-9 block holds (libbzip2's nblockMAX). */
const BLOCK_MAX = 900_000 - 19;
const RUNA = 0;
const RUNB = 1;
/** Huffman code lengths are capped at 17 bits, as libbzip2 writes them (the format allows 20). */
const MAX_CODE_LEN = 17;
const GROUP_SIZE = 50;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** Bits, most significant first, into bytes. */
class BitWriter {
  private buf = new Uint8Array(1 << 16);
  private len = 0;
  private acc = 0;
  private bits = 0;

  /** `count` (up to 24) low bits of `value`. */
  write(count: number, value: number) {
    this.acc = (this.acc << count) | (value & ((1 << count) - 1));
    this.bits += count;
    while (this.bits >= 8) {
      this.bits -= 8;
      if (this.len === this.buf.length) {
        const grown = new Uint8Array(this.buf.length * 2);
        grown.set(this.buf);
        this.buf = grown;
      }
      this.buf[this.len++] = (this.acc >>> this.bits) & 0xff;
    }
    this.acc &= (1 << this.bits) - 1;
  }

  write32(value: number) {
    this.write(16, value >>> 16);
    this.write(16, value & 0xffff);
  }

  /** Pads the last byte with zeros (only at the end of the stream: blocks are not byte aligned). */
  pad() {
    if (this.bits > 0) this.write(8 - this.bits, 0);
  }

  /** The whole bytes written so far. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.len);
    this.len = 0;
    return out;
  }
}

/**
 * The block's rotations in sorted order (prefix doubling: sort by the first 2k bytes from the order by
 * the first k, with counting sorts; O(n log n)). Equal rotations (a periodic block) may come in any
 * order: their last bytes are equal, so the transform is the same.
 */
export function sortRotations(s: Uint8Array, n: number): Int32Array {
  const sa = new Int32Array(n);
  let rank = new Int32Array(n);
  let next = new Int32Array(n);
  const bySecond = new Int32Array(n);
  const count = new Int32Array(Math.max(256, n) + 1);
  for (let i = 0; i < n; i++) count[s[i] + 1]++;
  for (let c = 1; c <= 256; c++) count[c] += count[c - 1];
  for (let i = 0; i < n; i++) sa[count[s[i]]++] = i;
  if (n === 0) return sa;
  rank[sa[0]] = 0;
  for (let j = 1; j < n; j++) rank[sa[j]] = rank[sa[j - 1]] + (s[sa[j]] !== s[sa[j - 1]] ? 1 : 0);
  let classes = rank[sa[n - 1]] + 1;
  for (let k = 1; k < n && classes < n; k <<= 1) {
    // Ordered by the second half (rank of i + k) is the current order shifted back by k.
    for (let j = 0; j < n; j++) {
      const i = sa[j] - k;
      bySecond[j] = i < 0 ? i + n : i;
    }
    // Stable counting sort by the first half.
    count.fill(0, 0, classes + 1);
    for (let j = 0; j < n; j++) count[rank[bySecond[j]] + 1]++;
    for (let c = 1; c <= classes; c++) count[c] += count[c - 1];
    for (let j = 0; j < n; j++) sa[count[rank[bySecond[j]]]++] = bySecond[j];
    next[sa[0]] = 0;
    for (let j = 1; j < n; j++) {
      const a = sa[j];
      const b = sa[j - 1];
      const a2 = a + k >= n ? a + k - n : a + k;
      const b2 = b + k >= n ? b + k - n : b + k;
      next[a] = next[b] + (rank[a] !== rank[b] || rank[a2] !== rank[b2] ? 1 : 0);
    }
    [rank, next] = [next, rank];
    classes = rank[sa[n - 1]] + 1;
  }
  return sa;
}

/** Huffman code lengths for `freq`, none longer than `maxLen` (libbzip2 halves the weights until so). */
function codeLengths(freq: Int32Array, alphaSize: number, maxLen: number): Uint8Array {
  const lengths = new Uint8Array(alphaSize);
  const weight = new Float64Array(alphaSize * 2);
  for (let i = 0; i < alphaSize; i++) weight[i] = Math.max(freq[i], 1);
  for (;;) {
    const parent = new Int32Array(alphaSize * 2).fill(-1);
    const active: number[] = [];
    for (let i = 0; i < alphaSize; i++) active.push(i);
    let nodes = alphaSize;
    while (active.length > 1) {
      // The two lightest nodes (alphabets are at most 258 symbols: a scan is cheap).
      let a = 0;
      let b = 1;
      if (weight[active[b]] < weight[active[a]]) [a, b] = [b, a];
      for (let j = 2; j < active.length; j++) {
        if (weight[active[j]] < weight[active[a]]) [a, b] = [j, a];
        else if (weight[active[j]] < weight[active[b]]) b = j;
      }
      const na = active[a];
      const nb = active[b];
      weight[nodes] = weight[na] + weight[nb];
      parent[na] = nodes;
      parent[nb] = nodes;
      active[Math.min(a, b)] = nodes;
      active.splice(Math.max(a, b), 1);
      nodes++;
    }
    let longest = 0;
    for (let i = 0; i < alphaSize; i++) {
      let depth = 0;
      for (let k = i; parent[k] >= 0; k = parent[k]) depth++;
      lengths[i] = depth;
      longest = Math.max(longest, depth);
    }
    if (longest <= maxLen) return lengths;
    for (let i = 0; i < alphaSize; i++) weight[i] = 1 + Math.floor(weight[i] / 2);
  }
}

/** Canonical codes for `lengths` (libbzip2's hbAssignCodes: by length, then by symbol). */
function assignCodes(lengths: Uint8Array, alphaSize: number): Int32Array {
  const codes = new Int32Array(alphaSize);
  let code = 0;
  for (let len = 1; len <= MAX_CODE_LEN; len++) {
    for (let i = 0; i < alphaSize; i++) if (lengths[i] === len) codes[i] = code++;
    code <<= 1;
  }
  return codes;
}

/**
 * A bzip2 stream fed chunk by chunk: `push` returns the bytes ready so far (empty until a block
 * fills), `finish` the rest. Output is deterministic for a given input.
 */
export class Bzip2Encoder {
  private readonly out = new BitWriter();
  private readonly block = new Uint8Array(BLOCK_MAX + 19);
  private nblock = 0;
  private readonly inUse = new Uint8Array(256);
  private blockCrc = 0xffffffff;
  private combinedCrc = 0;
  private runChar = -1;
  private runLen = 0;
  private finished = false;

  constructor() {
    this.out.write(24, 0x425a68); // "BZh"
    this.out.write(8, 0x39); // "9": 900 kB blocks
  }

  push(data: Uint8Array): Uint8Array {
    if (this.finished) throw new Error("bzip2: push after finish");
    for (let i = 0; i < data.length; i++) {
      const b = data[i];
      if (b === this.runChar && this.runLen < 255) this.runLen++;
      else {
        if (this.runLen > 0) this.addRun();
        this.runChar = b;
        this.runLen = 1;
      }
    }
    return this.out.take();
  }

  finish(): Uint8Array {
    if (this.finished) throw new Error("bzip2: finish twice");
    this.finished = true;
    if (this.runLen > 0) this.addRun();
    if (this.nblock > 0) this.writeBlock();
    this.out.write(24, 0x177245);
    this.out.write(24, 0x385090);
    this.out.write32(this.combinedCrc);
    this.out.pad();
    return this.out.take();
  }

  /** The pending run into the block (libbzip2's add_pair_to_block); a full block is compressed. */
  private addRun() {
    const ch = this.runChar;
    let crc = this.blockCrc;
    for (let i = 0; i < this.runLen; i++) crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ ch) & 0xff];
    this.blockCrc = crc;
    this.inUse[ch] = 1;
    const block = this.block;
    if (this.runLen < 4) {
      for (let i = 0; i < this.runLen; i++) block[this.nblock++] = ch;
    } else {
      block[this.nblock++] = ch;
      block[this.nblock++] = ch;
      block[this.nblock++] = ch;
      block[this.nblock++] = ch;
      this.inUse[this.runLen - 4] = 1;
      block[this.nblock++] = this.runLen - 4;
    }
    this.runLen = 0;
    this.runChar = -1;
    if (this.nblock >= BLOCK_MAX) this.writeBlock();
  }

  private writeBlock() {
    const n = this.nblock;
    const block = this.block;
    const blockCrc = ~this.blockCrc >>> 0;
    this.combinedCrc = (((this.combinedCrc << 1) | (this.combinedCrc >>> 31)) ^ blockCrc) >>> 0;

    // Burrows-Wheeler: the last byte of each sorted rotation; origPtr is where the block itself sorts.
    const sa = sortRotations(block, n);
    let origPtr = 0;
    const bwt = new Uint8Array(n);
    for (let j = 0; j < n; j++) {
      const i = sa[j];
      if (i === 0) origPtr = j;
      bwt[j] = block[i === 0 ? n - 1 : i - 1];
    }

    // Move-to-front over the symbols in use, zero runs as RUNA/RUNB (libbzip2's generateMTFValues).
    const seqToUnseq: number[] = [];
    const unseqToSeq = new Uint8Array(256);
    for (let c = 0; c < 256; c++) {
      if (this.inUse[c]) {
        unseqToSeq[c] = seqToUnseq.length;
        seqToUnseq.push(c);
      }
    }
    const nInUse = seqToUnseq.length;
    const alphaSize = nInUse + 2;
    const eob = nInUse + 1;
    const mtfv = new Uint16Array(n + 1);
    const mtfFreq = new Int32Array(alphaSize);
    const order = new Uint8Array(nInUse);
    for (let i = 0; i < nInUse; i++) order[i] = i;
    let nMTF = 0;
    let zPend = 0;
    const flushZeros = () => {
      zPend--;
      for (;;) {
        const sym = zPend & 1 ? RUNB : RUNA;
        mtfv[nMTF++] = sym;
        mtfFreq[sym]++;
        if (zPend < 2) break;
        zPend = (zPend - 2) >> 1;
      }
      zPend = 0;
    };
    for (let j = 0; j < n; j++) {
      const sym = unseqToSeq[bwt[j]];
      if (order[0] === sym) {
        zPend++;
        continue;
      }
      if (zPend > 0) flushZeros();
      let pos = 1;
      while (order[pos] !== sym) pos++;
      order.copyWithin(1, 0, pos);
      order[0] = sym;
      mtfv[nMTF++] = pos + 1;
      mtfFreq[pos + 1]++;
    }
    if (zPend > 0) flushZeros();
    mtfv[nMTF++] = eob;
    mtfFreq[eob]++;

    // Huffman tables: an initial split of the alphabet by frequency, then four rounds of choosing
    // the cheapest table per group of 50 and rebuilding each table from the groups it won.
    const nGroups = nMTF < 200 ? 2 : nMTF < 600 ? 3 : nMTF < 1200 ? 4 : nMTF < 2400 ? 5 : 6;
    let lengths: Uint8Array[] = [];
    {
      let nPart = nGroups;
      let remF = nMTF;
      let gs = 0;
      lengths = Array.from({ length: nGroups }, () => new Uint8Array(alphaSize));
      while (nPart > 0) {
        const tFreq = Math.floor(remF / nPart);
        let ge = gs - 1;
        let aFreq = 0;
        while (aFreq < tFreq && ge < alphaSize - 1) aFreq += mtfFreq[++ge];
        if (ge > gs && nPart !== nGroups && nPart !== 1 && (nGroups - nPart) % 2 === 1) aFreq -= mtfFreq[ge--];
        for (let v = 0; v < alphaSize; v++) lengths[nPart - 1][v] = v >= gs && v <= ge ? 0 : 15;
        nPart--;
        gs = ge + 1;
        remF -= aFreq;
      }
    }
    const nSelectors = Math.ceil(nMTF / GROUP_SIZE);
    const selectors = new Uint8Array(nSelectors);
    for (let iter = 0; iter < 4; iter++) {
      const freqs = Array.from({ length: nGroups }, () => new Int32Array(alphaSize));
      for (let g = 0; g < nSelectors; g++) {
        const gs = g * GROUP_SIZE;
        const ge = Math.min(gs + GROUP_SIZE, nMTF);
        let best = 0;
        let bestCost = Infinity;
        for (let t = 0; t < nGroups; t++) {
          const len = lengths[t];
          let cost = 0;
          for (let i = gs; i < ge; i++) cost += len[mtfv[i]];
          if (cost < bestCost) {
            bestCost = cost;
            best = t;
          }
        }
        selectors[g] = best;
        const freq = freqs[best];
        for (let i = gs; i < ge; i++) freq[mtfv[i]]++;
      }
      lengths = freqs.map((freq) => codeLengths(freq, alphaSize, MAX_CODE_LEN));
    }
    const codes = lengths.map((len) => assignCodes(len, alphaSize));

    const out = this.out;
    out.write(24, 0x314159); // block magic (pi)
    out.write(24, 0x265359);
    out.write32(blockCrc);
    out.write(1, 0); // not randomised
    out.write(24, origPtr);
    // The symbols in use: a 16-bit map of 16-byte ranges, then a 16-bit map of each range used.
    let ranges = 0;
    for (let r = 0; r < 16; r++) {
      for (let c = 0; c < 16; c++) if (this.inUse[r * 16 + c]) ranges |= 0x8000 >>> r;
    }
    out.write(16, ranges);
    for (let r = 0; r < 16; r++) {
      if (!(ranges & (0x8000 >>> r))) continue;
      let map = 0;
      for (let c = 0; c < 16; c++) if (this.inUse[r * 16 + c]) map |= 0x8000 >>> c;
      out.write(16, map);
    }
    out.write(3, nGroups);
    out.write(15, nSelectors);
    // Selectors, move-to-front coded, each in unary.
    const tableOrder = Array.from({ length: nGroups }, (_, t) => t);
    for (let g = 0; g < nSelectors; g++) {
      const pos = tableOrder.indexOf(selectors[g]);
      tableOrder.splice(pos, 1);
      tableOrder.unshift(selectors[g]);
      for (let k = 0; k < pos; k++) out.write(1, 1);
      out.write(1, 0);
    }
    // Code lengths, each table delta coded from its first length.
    for (const len of lengths) {
      let current = len[0];
      out.write(5, current);
      for (let i = 0; i < alphaSize; i++) {
        while (current < len[i]) {
          out.write(2, 2);
          current++;
        }
        while (current > len[i]) {
          out.write(2, 3);
          current--;
        }
        out.write(1, 0);
      }
    }
    for (let g = 0; g < nSelectors; g++) {
      const len = lengths[selectors[g]];
      const code = codes[selectors[g]];
      const ge = Math.min((g + 1) * GROUP_SIZE, nMTF);
      for (let i = g * GROUP_SIZE; i < ge; i++) out.write(len[mtfv[i]], code[mtfv[i]]);
    }

    this.nblock = 0;
    this.inUse.fill(0);
    this.blockCrc = 0xffffffff;
  }
}

/** A TransformStream compressing its bytes to bzip2, a block at a time. */
export function bzip2Stream(): TransformStream<Uint8Array, Uint8Array> {
  const encoder = new Bzip2Encoder();
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const out = encoder.push(chunk);
      if (out.length) controller.enqueue(out);
    },
    flush(controller) {
      controller.enqueue(encoder.finish());
    },
  });
}
