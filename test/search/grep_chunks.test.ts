import { describe, expect, it } from "vitest";
import { grepChunks } from "../../functions/search/repository";

describe("GET /projects/:id/search?scope=blobs (git grep's chunks)", () => {
  const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

  it("shows two lines of context either side, joining ranges that overlap or touch, case-insensitively", () => {
    const withHits = text.replace("line 5\n", "line 5 NEEDLE\n").replace("line 9\n", "line 9 needle\n").replace("line 18\n", "line 18 Needle\n");
    expect(grepChunks(withHits, "needle")).toEqual([
      { startline: 3, data: "line 3\nline 4\nline 5 NEEDLE\nline 6\nline 7\nline 8\nline 9 needle\nline 10\nline 11\n" },
      { startline: 16, data: "line 16\nline 17\nline 18 Needle\nline 19\nline 20\n" },
    ]);
  });

  it("keeps ranges apart when a line separates them, and clips at the file's edges", () => {
    const withHits = text.replace("line 1\n", "line 1 x-hit\n").replace("line 7\n", "line 7 x-hit\n");
    expect(grepChunks(withHits, "X-HIT").map((c) => c.startline)).toEqual([1, 5]);
    expect(grepChunks("only x-hit", "x-hit")).toEqual([{ startline: 1, data: "only x-hit\n" }]);
    expect(grepChunks(text, "absent")).toEqual([]);
  });
});
