// Line diffs and numstat (docs/git.md, "Stats and diffs"): pure functions over bytes.

/** Git's rule (`buffer_is_binary`): a NUL byte in the first 8,000 bytes. */
export function isBinary(content: Uint8Array): boolean {
  const n = Math.min(content.length, 8000);
  for (let i = 0; i < n; i++) if (content[i] === 0) return true;
  return false;
}

/**
 * Splits content into lines that keep their `\n` (xdiff's records): a last line without a newline is
 * a different line from the same text with one. Lines are returned as byte-identical strings (one
 * char per byte), good for equality and hashing, not for display.
 */
export function splitLines(content: Uint8Array): string[] {
  const lines: string[] = [];
  let start = 0;
  const n = content.length;
  while (start < n) {
    let end = content.indexOf(10, start);
    end = end < 0 ? n : end + 1;
    lines.push(bytesToBinaryString(content, start, end));
    start = end;
  }
  return lines;
}

function bytesToBinaryString(bytes: Uint8Array, start: number, end: number): string {
  let out = "";
  for (let i = start; i < end; i += 8192) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 8192)) as unknown as number[]);
  }
  return out;
}

/** Maps lines to small integers shared by both sides. */
function intern(a: string[], b: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const map = (lines: string[]) => {
    const out = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = ids.get(lines[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(lines[i], id);
      }
      out[i] = id;
    }
    return out;
  };
  return [map(a), map(b)];
}

export type EditOp = { op: "equal" | "delete" | "insert"; oldStart: number; newStart: number; count: number };

/**
 * Marks which lines of `a` are deleted and which of `b` are inserted (xdiff's `rchg` arrays) by a
 * minimal diff: common prefix and suffix trimmed, lines present on one side only marked at once (they
 * can never match), then Myers' linear-space divide and conquer on the rest. Minimal is what
 * `git diff --numstat` reports except where xdiff's heuristics give up minimality on very large or
 * repetitive inputs (docs/git.md, "Stats and diffs").
 */
export function changeMarks(a: Int32Array, b: Int32Array): { deleted: Uint8Array; inserted: Uint8Array } {
  const deleted = new Uint8Array(a.length);
  const inserted = new Uint8Array(b.length);
  const inA = new Set<number>(a);
  const inB = new Set<number>(b);
  const keepA: number[] = [];
  const keepB: number[] = [];
  for (let i = 0; i < a.length; i++) {
    if (inB.has(a[i])) keepA.push(i);
    else deleted[i] = 1;
  }
  for (let j = 0; j < b.length; j++) {
    if (inA.has(b[j])) keepB.push(j);
    else inserted[j] = 1;
  }
  const ra = Int32Array.from(keepA, (i) => a[i]);
  const rb = Int32Array.from(keepB, (j) => b[j]);
  const da = new Uint8Array(ra.length);
  const db = new Uint8Array(rb.length);
  compareRanges(ra, 0, ra.length, rb, 0, rb.length, da, db);
  for (let i = 0; i < ra.length; i++) if (da[i]) deleted[keepA[i]] = 1;
  for (let j = 0; j < rb.length; j++) if (db[j]) inserted[keepB[j]] = 1;
  return { deleted, inserted };
}

function compareRanges(a: Int32Array, aLo: number, aHi: number, b: Int32Array, bLo: number, bHi: number, da: Uint8Array, db: Uint8Array) {
  // Trim the common ends of this range.
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    aLo++;
    bLo++;
  }
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
  }
  if (aLo === aHi) {
    for (let j = bLo; j < bHi; j++) db[j] = 1;
    return;
  }
  if (bLo === bHi) {
    for (let i = aLo; i < aHi; i++) da[i] = 1;
    return;
  }
  const split = middleSnake(a, aLo, aHi, b, bLo, bHi);
  if (!split) {
    for (let i = aLo; i < aHi; i++) da[i] = 1;
    for (let j = bLo; j < bHi; j++) db[j] = 1;
    return;
  }
  compareRanges(a, aLo, aLo + split[0], b, bLo, bLo + split[1], da, db);
  compareRanges(a, aLo + split[0], aHi, b, bLo + split[1], bHi, da, db);
}

/** The point where a shortest edit path crosses its middle (Myers 1986, §4b), relative to the range. */
function middleSnake(a: Int32Array, aLo: number, aHi: number, b: Int32Array, bLo: number, bHi: number): [number, number] | null {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.ceil((n + m) / 2);
  const vOffset = maxD;
  const vLength = 2 * maxD + 2;
  const v1 = new Int32Array(vLength).fill(-1);
  const v2 = new Int32Array(vLength).fill(-1);
  v1[vOffset + 1] = 0;
  v2[vOffset + 1] = 0;
  const delta = n - m;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = vOffset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1] < v1[k1Offset + 1]) ? v1[k1Offset + 1] : v1[k1Offset - 1] + 1;
      let y1 = x1 - k1;
      while (x1 < n && y1 < m && a[aLo + x1] === b[bLo + y1]) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > n) k1end += 2;
      else if (y1 > m) k1start += 2;
      else if (front) {
        const k2Offset = vOffset + delta - k1;
        if (k2Offset >= 0 && k2Offset < vLength && v2[k2Offset] !== -1) {
          if (x1 >= n - v2[k2Offset]) return [x1, y1];
        }
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = vOffset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1] < v2[k2Offset + 1]) ? v2[k2Offset + 1] : v2[k2Offset - 1] + 1;
      let y2 = x2 - k2;
      while (x2 < n && y2 < m && a[aHi - x2 - 1] === b[bHi - y2 - 1]) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > n) k2end += 2;
      else if (y2 > m) k2start += 2;
      else if (!front) {
        const k1Offset = vOffset + delta - k2;
        if (k1Offset >= 0 && k1Offset < vLength && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset];
          const y1 = vOffset + x1 - k1Offset;
          if (x1 >= n - x2) return [x1, y1];
        }
      }
    }
  }
  return null;
}

/** The edit script as runs, from the change marks. */
export function diffSequences(a: Int32Array, b: Int32Array): EditOp[] {
  const { deleted, inserted } = changeMarks(a, b);
  const ops: EditOp[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && deleted[i]) {
      const start = i;
      while (i < a.length && deleted[i]) i++;
      ops.push({ op: "delete", oldStart: start, newStart: j, count: i - start });
    } else if (j < b.length && inserted[j]) {
      const start = j;
      while (j < b.length && inserted[j]) j++;
      ops.push({ op: "insert", oldStart: i, newStart: start, count: j - start });
    } else {
      const oldStart = i;
      const newStart = j;
      while (i < a.length && j < b.length && !deleted[i] && !inserted[j]) {
        i++;
        j++;
      }
      if (i === oldStart) throw new Error("inconsistent change marks");
      ops.push({ op: "equal", oldStart, newStart, count: i - oldStart });
    }
  }
  return ops;
}

function sum(marks: Uint8Array): number {
  let total = 0;
  for (let i = 0; i < marks.length; i++) total += marks[i];
  return total;
}

export type LineCounts = { additions: number; deletions: number; binary: boolean };

/** `git diff --numstat` for one file: binary files count nothing. */
export function numstat(oldContent: Uint8Array | null, newContent: Uint8Array | null): LineCounts {
  const before = oldContent ?? new Uint8Array();
  const after = newContent ?? new Uint8Array();
  if (isBinary(before) || isBinary(after)) return { additions: 0, deletions: 0, binary: true };
  const [a, b] = intern(splitLines(before), splitLines(after));
  const { deleted, inserted } = changeMarks(a, b);
  return { additions: sum(inserted), deletions: sum(deleted), binary: false };
}

/** The edit script between two texts, line by line. */
export function diffLines(oldContent: Uint8Array, newContent: Uint8Array): { ops: EditOp[]; oldLines: string[]; newLines: string[] } {
  const oldLines = splitLines(oldContent);
  const newLines = splitLines(newContent);
  const [a, b] = intern(oldLines, newLines);
  return { ops: diffSequences(a, b), oldLines, newLines };
}

/**
 * Unified diff hunks with `context` lines (GitLab's `diff` field: no `---`/`+++` header). Lines are
 * decoded as UTF-8. Hunk boundaries follow the minimal script; git's indent heuristic may place
 * ambiguous hunks elsewhere (docs/git.md, "Stats and diffs": tests compare line sets).
 */
export function unifiedDiff(oldContent: Uint8Array, newContent: Uint8Array, context = 3): string {
  const { ops, oldLines, newLines } = diffLines(oldContent, newContent);
  type Line = { kind: " " | "-" | "+"; text: string; oldNo: number; newNo: number };
  const lines: Line[] = [];
  for (const op of ops) {
    for (let i = 0; i < op.count; i++) {
      if (op.op === "equal") lines.push({ kind: " ", text: newLines[op.newStart + i], oldNo: op.oldStart + i, newNo: op.newStart + i });
      else if (op.op === "delete") lines.push({ kind: "-", text: oldLines[op.oldStart + i], oldNo: op.oldStart + i, newNo: op.newStart });
      else lines.push({ kind: "+", text: newLines[op.newStart + i], oldNo: op.oldStart, newNo: op.newStart + i });
    }
  }
  const changed = lines.map((l, i) => (l.kind === " " ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return "";
  const decoder = new TextDecoder();
  const render = (text: string) => {
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    const decoded = decoder.decode(bytes);
    return decoded.endsWith("\n") ? decoded : `${decoded}\n\\ No newline at end of file\n`;
  };
  let out = "";
  let h = 0;
  while (h < changed.length) {
    let start = Math.max(0, changed[h] - context);
    let end = Math.min(lines.length, changed[h] + context + 1);
    let k = h + 1;
    while (k < changed.length && changed[k] - context <= end) {
      end = Math.min(lines.length, changed[k] + context + 1);
      k++;
    }
    const hunk = lines.slice(start, end);
    const oldCount = hunk.filter((l) => l.kind !== "+").length;
    const newCount = hunk.filter((l) => l.kind !== "-").length;
    const first = hunk[0];
    const oldStart = oldCount === 0 ? first.oldNo : first.oldNo + 1;
    const newStart = newCount === 0 ? first.newNo : first.newNo + 1;
    const range = (s: number, c: number) => (c === 1 ? `${s}` : `${s},${c}`);
    out += `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n`;
    for (const line of hunk) out += line.kind + render(line.text);
    h = k;
    start = end;
  }
  return out;
}
