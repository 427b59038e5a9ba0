import { describe, expect, it } from "vitest";
import { humanDuration, parseDuration } from "../../functions/entities/time_tracking";

describe("parseDuration (Gitlab::TimeTrackingFormatter.parse)", () => {
  it("reads units, bare hours, chrono notation, fractions and a leading minus", () => {
    const cases: [string, number | null][] = [
      ["3h30m", 12600],
      ["1mo 2w 3d 4h 5m 6s", 965106],
      ["2", 7200],
      ["1.5h", 5400],
      ["hour 30 min", 5400],
      ["2 days and 4 hours", 72000],
      ["1:30", 90],
      ["1y", 31557600],
      ["-1w", -144000],
      ["foo", null],
      ["0", null],
      ["", null],
    ];
    for (const [text, seconds] of cases) expect([text, parseDuration(text)]).toEqual([text, seconds]);
  });
});

describe("humanDuration (Gitlab::TimeTrackingFormatter.output)", () => {
  it("prints short units with 8-hour days, 5-day weeks and 4-week months; null for zero", () => {
    const cases: [number, string | null][] = [
      [0, null],
      [59, "59s"],
      [12600, "3h 30m"],
      [28800, "1d"],
      [36000, "1d 2h"],
      [144000, "1w"],
      [201600, "1w 2d"],
      [576000, "1mo"],
      [31557600, "1y"],
      [-7200, "-2h"],
    ];
    for (const [seconds, text] of cases) expect([seconds, humanDuration(seconds)]).toEqual([seconds, text]);
  });
});
