import { describe, expect, inject, it } from "vitest";
import { utf8 } from "../../../functions/shared/git/pure/bytes";
import { isBinary, numstat, unifiedDiff } from "../../../functions/shared/git/pure/diff";
import { mergeText } from "../../../functions/shared/git/pure/merge";
import "../../helpers/git-oracle-types";

const fixtures = inject("gitFixtures");
const text = (s: string) => utf8.encode(s);

describe("numstat", () => {
  it("counts added and deleted lines, a missing final newline making a different line", () => {
    expect(numstat(text("a\nb\nc\n"), text("a\nB\nc\nd\n"))).toEqual({ additions: 2, deletions: 1, binary: false });
    expect(numstat(text("a\nb"), text("a\nb\n"))).toEqual({ additions: 1, deletions: 1, binary: false });
    expect(numstat(null, text("x\ny\n"))).toEqual({ additions: 2, deletions: 0, binary: false });
    expect(numstat(text("x\ny\n"), null)).toEqual({ additions: 0, deletions: 2, binary: false });
    expect(numstat(text(""), text(""))).toEqual({ additions: 0, deletions: 0, binary: false });
  });

  it("treats a NUL in the first 8,000 bytes as binary", () => {
    const binary = new Uint8Array([1, 2, 0, 3]);
    expect(isBinary(binary)).toBe(true);
    const late = new Uint8Array(9000).fill(65);
    late[8500] = 0;
    expect(isBinary(late)).toBe(false);
    expect(numstat(binary, text("x\n"))).toEqual({ additions: 0, deletions: 0, binary: true });
  });

  it("finds a minimal script on shuffled input", () => {
    // LCS of these is 4 (a c e g): 3 deletions, 3 additions.
    expect(numstat(text("a\nb\nc\nd\ne\nf\ng\n"), text("a\nc\nx\ne\ny\ng\nz\n"))).toEqual({ additions: 3, deletions: 3, binary: false });
  });
});

describe("unifiedDiff", () => {
  it("writes hunks with three lines of context", () => {
    const before = text("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
    const after = text("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n");
    expect(unifiedDiff(before, after)).toBe("@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  });

  it("marks a missing final newline", () => {
    expect(unifiedDiff(text("a\n"), text("a\nb"))).toBe("@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n");
  });

  it("describes a new file", () => {
    expect(unifiedDiff(text(""), text("x\ny\n"))).toBe("@@ -0,0 +1,2 @@\n+x\n+y\n");
  });
});

describe("three-way text merge (against git merge-file)", () => {
  it("agrees with git merge-file on clean/conflict and on every clean result", () => {
    const disagreements: string[] = [];
    for (const c of fixtures.merges) {
      const merged = mergeText(text(c.ours), text(c.base), text(c.theirs));
      if ((merged !== null) !== c.clean) disagreements.push(`${c.name}: clean ${merged !== null}, git ${c.clean}`);
      else if (merged && new TextDecoder().decode(merged) !== c.result) disagreements.push(`${c.name}: different result`);
    }
    expect(fixtures.merges.length).toBeGreaterThanOrEqual(60);
    expect(fixtures.merges.some((c) => c.clean) && fixtures.merges.some((c) => !c.clean)).toBe(true);
    expect(disagreements).toEqual([]);
  });
});
