import { describe, expect, it } from "vitest";
import { compositeStatus } from "../../../functions/shared/ci/status";

const j = (spec: string) =>
  spec.split(",").filter(Boolean).map((s) => {
    const [status, allow] = s.trim().split("+");
    return { status, allowFailure: allow === "allow" };
  });

// lib/gitlab/ci/status/composite.rb, as docs/ci.md, "Composite status" tabulates it.
const TABLE: [string, boolean, string | null][] = [
  ["", false, null],
  ["success, failed+allow", false, "success"],
  ["success, manual+allow", false, "success"],
  ["success, manual", false, "manual"],
  ["success, created", false, "running"],
  ["pending, created", false, "pending"],
  ["failed, skipped", false, "failed"],
  ["canceled, success", false, "canceled"],
  ["canceled, failed", false, "failed"],
  ["skipped", false, "skipped"],
  ["skipped, manual+allow", false, "skipped"],
  ["created", false, "created"],
  ["created, manual+allow", false, "created"],
  ["running, failed", false, "running"],
  ["scheduled, success", false, "scheduled"],
  ["manual, scheduled", false, "manual"],
  ["preparing", false, "preparing"],
  ["preparing, success", false, "preparing"],
  ["waiting_for_resource, success", false, "waiting_for_resource"],
  ["failed", false, "failed"],
  ["canceled+allow", false, "success"],
  ["success, skipped", false, "success"],
  ["success, skipped", true, "skipped"],
  ["success, manual+allow", true, "skipped"],
  ["success, running", true, "pending"],
  ["success, failed", true, "failed"],
  ["success", true, "success"],
  ["failed+allow", true, "success"],
];

describe("compositeStatus (lib/gitlab/ci/status/composite.rb)", () => {
  for (const [spec, dag, expected] of TABLE) {
    it(`{${spec}}${dag ? " dag" : ""} → ${expected}`, () => {
      expect(compositeStatus(j(spec), dag)).toBe(expected);
    });
  }
});
