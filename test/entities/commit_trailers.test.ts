// parseTrailers against `git interpret-trailers --parse` (git 2.39) on the same messages; the expected
// hashes below were produced by git, then keyed as Gitaly does (split at the first `:`).
import { describe, expect, it } from "vitest";
import { parseTrailers } from "../../functions/entities/commit_trailers";

const CASES: [string, Record<string, string>][] = [
  ["Title only", {}],
  ["Title\n\nSigned-off-by: A <a@example.com>\n", { "Signed-off-by": "A <a@example.com>" }],
  ["Title\n\nBody text.\n\nSigned-off-by: A <a@example.com>\nReviewed-by: B <b@example.com>\n", { "Signed-off-by": "A <a@example.com>", "Reviewed-by": "B <b@example.com>" }],
  ["Title\n\nBody.\n\nFixes: one\nFixes: two\n", { Fixes: "two" }],
  ["Title\n\nSome text\nKey: value\n", {}],
  ["Title\n\nSome text\nmore text\nSigned-off-by: X <x@y>\n", { "Signed-off-by": "X <x@y>" }],
  ["Title\n\nline one\nline two\nline three\nline four\nSigned-off-by: X <x@y>\n", {}],
  ["Title\n\nKey: value\n  continued here\nOther: v\n", { Key: "value continued here", Other: "v" }],
  ["Title\n\nBody\n\n(cherry picked from commit 0123456789012345678901234567890123456789)", {}],
  ["Title\n\nBody\n\nCo-authored-by: C <c@example.com>\n---\nnot: trailer\n", { "Co-authored-by": "C <c@example.com>" }],
  ["Key: looks like trailer\n", {}],
  ["Title\n\nKey : spaced\nbad line: x y\n", {}],
  ["Title\n\nhttp://example.com: not\nKey: v\n", { http: "//example.com: not", Key: "v" }],
  ["Title\n\n\n\nKey: v\n\n\n", { Key: "v" }],
];

describe("commit trailers (GET /projects/:id/repository/commits?trailers=true)", () => {
  it("finds the trailer block as git does", () => {
    for (const [message, expected] of CASES) expect([message, parseTrailers(message)]).toEqual([message, expected]);
  });
});
