// EpicBaseEntity's dates (functions/entities/epic_base.ts): Date::DATE_FORMATS[:medium] and
// EntityDateHelper#remaining_days_in_words with ActionView's distance_of_time_in_words, today fixed.
import { describe, expect, it } from "vitest";
import { epicBase, remainingDaysInWords } from "../../functions/entities/epic_base";

const TODAY = "2026-01-01";

describe("remaining_days_in_words", () => {
  it.each([
    ["2025-12-31", null, "<strong>Past due</strong>"],
    ["2026-01-01", null, "<strong>Today</strong>"],
    [null, "2026-01-05", "<strong>Upcoming</strong>"],
    ["2026-01-02", null, "<strong>1</strong> day remaining"],
    ["2026-01-04", "2025-12-01", "<strong>3</strong> days remaining"],
    ["2026-01-30", null, "<strong>29</strong> days remaining"],
    ["2026-02-05", null, "<strong>1</strong> month remaining"],
    ["2026-02-20", null, "<strong>2</strong> months remaining"],
    ["2026-03-10", null, "<strong>2</strong> months remaining"],
    ["2026-11-01", null, "<strong>10</strong> months remaining"],
    ["2027-01-01", null, "<strong>1</strong> year remaining"],
    ["2027-09-01", null, "over <strong>1</strong> year remaining"],
    ["2027-12-01", null, "almost <strong>2</strong> years remaining"],
    [null, "2025-12-31", "<strong>1</strong> day elapsed"],
    [null, "2025-12-29", "<strong>3</strong> days elapsed"],
    [null, null, null],
  ])("due %s, start %s: %s", (due, start, words) => {
    expect(remainingDaysInWords(due, start, TODAY)).toBe(words);
  });
});

describe("EpicBaseEntity", () => {
  const row = { id: 7, iid: 3, title: "An epic", groupId: 5, groupFullPath: "top/sub", startDate: null, endDate: null };

  it("shows the path and no dates when the epic has none", () => {
    expect(epicBase(row, TODAY)).toEqual({ id: 7, iid: 3, title: "An epic", url: "/groups/top/sub/-/epics/3", group_id: 5 });
  });

  it("shows the end date as %b %-d, %Y and the words", () => {
    expect(epicBase({ ...row, endDate: "2026-01-04" }, TODAY)).toMatchObject({
      human_readable_end_date: "Jan 4, 2026",
      human_readable_timestamp: "<strong>3</strong> days remaining",
    });
    const started = epicBase({ ...row, startDate: "2025-12-29" }, TODAY);
    expect(started).not.toHaveProperty("human_readable_end_date");
    expect(started.human_readable_timestamp).toBe("<strong>3</strong> days elapsed");
  });
});
