import { describe, expect, it } from "vitest";
import { normalizeColor } from "../../functions/labels/rules";

describe("Gitlab::Color.of (lib/gitlab/color.rb)", () => {
  it("turns GitLab's colour names into upper-case hex, in any case and trimmed", () => {
    expect(normalizeColor("  RebeccaPurple ")).toBe("#663399");
    expect(normalizeColor("lightgoldenrodyellow")).toBe("#FAFAD2");
    expect(normalizeColor("aqua")).toBe("#00FFFF");
    expect(normalizeColor("#abc")).toBe("#abc");
  });

  it("keeps what GitLab's table does not have: cyan, magenta, object keys, unknown names", () => {
    expect(normalizeColor("cyan")).toBe("cyan");
    expect(normalizeColor("Magenta")).toBe("Magenta");
    expect(normalizeColor("constructor")).toBe("constructor");
    expect(normalizeColor("blurple")).toBe("blurple");
  });
});
