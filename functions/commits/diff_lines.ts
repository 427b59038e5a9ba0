// The lines of a unified diff as Gitlab::Diff::Parser numbers them, and their line codes
// (Gitlab::Git.diff_line_code), for commit comments on a diff line (LegacyDiffNote).
import { sha1 } from "@noble/hashes/legacy.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

export type DiffLine = {
  /** "new" (added), "old" (removed) or null (context); hunk headers and "\ No newline" are skipped. */
  type: "new" | "old" | null;
  /** The old and new line counters at the line, as the parser keeps them. */
  oldPos: number;
  newPos: number;
};

/**
 * Gitlab::Diff::Parser#parse over one file's hunks: `@@ -a,b +c,d @@` restarts the counters; an added
 * line keeps the old counter where it is (and a removed line the new one).
 */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldPos = 0;
  let newPos = 0;
  for (const text of diff.split("\n")) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      oldPos = Number(header[1]);
      newPos = Number(header[2]);
      continue;
    }
    if (text.startsWith("\\")) continue;
    if (text.startsWith("+")) out.push({ type: "new", oldPos, newPos: newPos++ });
    else if (text.startsWith("-")) out.push({ type: "old", oldPos: oldPos++, newPos });
    else if (text.startsWith(" ")) out.push({ type: null, oldPos: oldPos++, newPos: newPos++ });
  }
  return out;
}

/** `Gitlab::Git.diff_line_code(path, new_pos, old_pos)`: `<sha1 of the path>_<old>_<new>`. */
export function lineCode(path: string, line: Pick<DiffLine, "oldPos" | "newPos">): string {
  return `${bytesToHex(sha1(utf8ToBytes(path)))}_${line.oldPos}_${line.newPos}`;
}

/** Diff_line#line: the new position unless removed, else the old one. */
export function lineNumber(line: DiffLine): number {
  return line.type === "old" ? line.oldPos : line.newPos;
}
