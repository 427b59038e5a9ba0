// git's versioncmp.c (strverscmp with git's tables), behind `git for-each-ref --sort=version:refname`,
// which Gitaly runs for `order_by=version`. No `versionsort.suffix` configuration exists here, so
// prerelease suffixes get no special treatment (git's default).

const S_N = 0x0;
const S_I = 0x3;
const S_F = 0x6;
const S_Z = 0x9;
const CMP = 2;
const LEN = 3;

// prettier-ignore
const NEXT_STATE = [
  /* S_N */ S_N, S_I, S_Z,
  /* S_I */ S_N, S_I, S_I,
  /* S_F */ S_N, S_F, S_F,
  /* S_Z */ S_N, S_F, S_Z,
];

// prettier-ignore
const RESULT_TYPE = [
  /* S_N */ CMP, CMP, CMP, CMP, LEN, CMP, CMP, CMP, CMP,
  /* S_I */ CMP, -1, -1, +1, LEN, LEN, +1, LEN, LEN,
  /* S_F */ CMP, CMP, CMP, CMP, CMP, CMP, CMP, CMP, CMP,
  /* S_Z */ CMP, +1, +1, -1, CMP, CMP, -1, CMP, CMP,
];

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** 0 for a non-digit, 1 for 1-9, 2 for '0' (`(c == '0') + (isdigit(c) != 0)`). */
const klass = (c: number) => (c === 0x30 ? 1 : 0) + (isDigit(c) ? 1 : 0);

/** Negative, zero or positive as `a` sorts before, with or after `b`. Byte strings end in a virtual NUL. */
export function versionCompare(a: string, b: string): number {
  const p1 = new TextEncoder().encode(a);
  const p2 = new TextEncoder().encode(b);
  const at = (bytes: Uint8Array, i: number) => (i < bytes.length ? bytes[i] : 0);
  let i1 = 0;
  let i2 = 0;
  let c1 = at(p1, i1++);
  let c2 = at(p2, i2++);
  let state = S_N + klass(c1);
  let diff: number;
  while ((diff = c1 - c2) === 0) {
    if (c1 === 0) return 0;
    state = NEXT_STATE[state];
    c1 = at(p1, i1++);
    c2 = at(p2, i2++);
    state += klass(c1);
  }
  const result = RESULT_TYPE[state * 3 + klass(c2)];
  if (result === CMP) return diff;
  if (result === LEN) {
    while (isDigit(at(p1, i1++))) if (!isDigit(at(p2, i2++))) return 1;
    return isDigit(at(p2, i2)) ? -1 : diff;
  }
  return result;
}
