import { describe, expect, it } from "vitest";
import type { FileDiff } from "../../functions/shared/git";
import { limitDiffs } from "../../functions/merge_requests/versions";

const file = (path: string, lines: number): FileDiff => ({
  oldPath: path,
  newPath: path,
  aMode: "100644",
  bMode: "100644",
  newFile: false,
  renamedFile: false,
  deletedFile: false,
  diff: "@@ -1 +1 @@\n" + "+x\n".repeat(lines - 1),
  tooLarge: false,
  binary: false,
  additions: lines - 1,
  deletions: 0,
  oldOid: null,
  newOid: null,
});

describe("limitDiffs (raw_diffs with limits, the `changes` overflow)", () => {
  it("keeps everything under the limits", () => {
    const diffs = [file("a", 3), file("b", 3)];
    expect(limitDiffs(diffs, { maxFiles: 2, maxLines: 6 })).toEqual({ diffs, overflow: false });
  });

  it("stops at the file limit and at the line limit, with overflow", () => {
    const diffs = [file("a", 3), file("b", 3), file("c", 3)];
    expect(limitDiffs(diffs, { maxFiles: 2, maxLines: 100 })).toEqual({ diffs: diffs.slice(0, 2), overflow: true });
    expect(limitDiffs(diffs, { maxFiles: 10, maxLines: 5 })).toEqual({ diffs: diffs.slice(0, 1), overflow: true });
  });
});
