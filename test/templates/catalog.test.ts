import { describe, expect, it } from "vitest";
import type { LicenseTemplate } from "../../functions/entities/templates";
import type { Ctx } from "../../functions/kernel/env";
import { readCatalog, resolveLicense } from "../../functions/templates/catalog";

const license = (content: string): LicenseTemplate => ({
  key: "x",
  name: "X",
  nickname: null,
  popular: false,
  html_url: "http://choosealicense.com/licenses/x/",
  source_url: null,
  description: null,
  conditions: [],
  permissions: [],
  limitations: [],
  content,
});
const now = new Date("2031-06-01T00:00:00Z");

describe("resolveLicense (LicenseTemplate#resolve!)", () => {
  it("fills every spelling of GitLab's placeholders, case-insensitively", () => {
    const text = "[year] <YYYY> {year}\n[fullname] <name of author> {Name of Copyright Owner}\n[project] <description> <one line to give the program's name and a brief idea of what it does.>";
    expect(resolveLicense(license(text), { projectName: "Proj", fullname: "Jo", now }).content).toBe("2031 2031 2031\nJo Jo Jo\nProj Proj Proj");
  });

  it("fills the year only when no project or holder is given, and keeps `$` patterns as text", () => {
    expect(resolveLicense(license("[year] [fullname] [project]"), { now }).content).toBe("2031 [fullname] [project]");
    expect(resolveLicense(license("[fullname]"), { fullname: "$& $1 $$", now }).content).toBe("$& $1 $$");
  });

  it("leaves the template it was given as it was", () => {
    const original = license("[year]");
    resolveLicense(original, { now });
    expect(original.content).toBe("[year]");
  });
});

describe("readCatalog", () => {
  it("is null for a Worker deployed without its assets (the routes then answer as unknown routes)", async () => {
    const c = { env: {}, req: { url: "http://edgeforge.test/api/v4/templates/gitignores" } } as unknown as Ctx;
    expect(await readCatalog(c, "gitignores")).toBeNull();
  });
});
