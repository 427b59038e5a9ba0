// The pure page rules of functions/shared/wikis/pages.ts against GitLab's (app/models/wiki.rb,
// wiki_page.rb, Wikis::CreateAttachmentService), table-driven.
import { describe, expect, it } from "vitest";
import {
  humanSize,
  isPagePath,
  markdownLink,
  matchPage,
  pageErrors,
  pageFormat,
  processTitle,
  sluggifiedTitle,
  slugOf,
  titleOf,
  truncateFileName,
} from "../../../functions/shared/wikis/pages";

describe("wiki page rules", () => {
  it("sluggifies titles as Wiki.sluggified_title (strip, resolve under /, spaces as hyphens)", () => {
    const cases: [string, string][] = [
      ["Home", "Home"],
      ["  My page  ", "My-page"],
      ["dir/sub page", "dir/sub-page"],
      ["/abs//path/", "abs/path"],
      ["a/./b/../c", "a/c"],
      ["../../escape", "escape"],
      ["../..", "."],
    ];
    for (const [title, slug] of cases) expect([title, sluggifiedTitle(title)]).toEqual([title, slug]);
  });

  it("processes titles as WikiPage#process_title (squished components; an existing page's directory kept)", () => {
    expect(processTitle("  foo   /  bar  / page  name ", null)).toBe("foo/bar/page name");
    expect(processTitle("renamed", "docs/old")).toBe("docs/renamed");
    expect(processTitle("/moved", "docs/old")).toBe("moved");
    expect(processTitle("other/dir", "docs/old")).toBe("other/dir");
    expect(processTitle("top", "old")).toBe("top");
  });

  it("reads slugs, titles and formats from file names; only markup files are pages", () => {
    const cases: [string, string, string, string][] = [
      ["Home.md", "Home", "Home", "markdown"],
      ["dir/My-page.markdown", "dir/My-page", "My page", "markdown"],
      ["notes.ORG", "notes", "notes", "org"],
      ["guide.adoc", "guide", "guide", "asciidoc"],
      ["api.rdoc", "api", "api", "rdoc"],
      ["intro.rst", "intro", "intro", "rest"],
      // The last extension decides (`.txt`), as File.extname does.
      ["readme.rst.txt", "readme.rst", "readme.rst", "plaintext"],
      ["page2.with.dot.md", "page2.with.dot", "page2.with.dot", "markdown"],
    ];
    for (const [path, slug, title, format] of cases) {
      expect([path, isPagePath(path), slugOf(path), titleOf(path), pageFormat(path)]).toEqual([path, true, slug, title, format]);
    }
    for (const path of ["image.png", "uploads/abc/file.pdf", "Makefile", "md"]) expect([path, isPagePath(path)]).toEqual([path, false]);
  });

  it("finds a page by title or slug, case-insensitively, the first in path order (Wiki#find_matched_file)", () => {
    const paths = ["Home.md", "dir/My-page.md", "dir/my-page.org", "notes.txt"];
    expect(matchPage(paths, "home")).toBe("Home.md");
    expect(matchPage(paths, "dir/My page")).toBe("dir/My-page.md");
    expect(matchPage(paths, "DIR/MY-PAGE")).toBe("dir/My-page.md");
    expect(matchPage(paths, "dir")).toBeNull();
    expect(matchPage(paths, "Home.md")).toBeNull();
    expect(matchPage(["a+b.md"], "a+b")).toBe("a+b.md");
  });

  it("validates as WikiPage: a blank title, path limits in bytes, the content size in ActiveSupport's units", () => {
    const ok = { titleChanged: true, content: "x", contentChanged: true, maxContentBytes: 1024 };
    expect(pageErrors({ ...ok, title: "fine" })).toBeNull();
    expect(pageErrors({ ...ok, title: " " })).toEqual({ title: ["can't be blank"] });
    expect(pageErrors({ ...ok, title: `${"d".repeat(256)}/${"é".repeat(123)}` })).toEqual({
      title: ["exceeds the limit of 245 bytes", `exceeds the limit of 255 bytes for directory name "${"d".repeat(256)}"`],
    });
    expect(pageErrors({ ...ok, title: "t", content: "x".repeat(2000) })).toEqual({ content: ["is too long (1.95 KB). The maximum size is 1 KB."] });
    expect(pageErrors({ ...ok, title: "t", content: "x".repeat(2000), contentChanged: false })).toBeNull();
    expect([humanSize(1), humanSize(1023), humanSize(52428800), humanSize(1536)]).toEqual(["1 Byte", "1023 Bytes", "50 MB", "1.5 KB"]);
  });

  it("names attachments as Wikis::CreateAttachmentService and links them as FileMarkdownLinkBuilder", () => {
    expect(truncateFileName("dk.png")).toBe("dk.png");
    const long = `${"n".repeat(300)}.tar`;
    expect(truncateFileName(long)).toBe(`${"n".repeat(251)}.tar`);
    expect(truncateFileName(long)).toHaveLength(255);
    expect(markdownLink("dk.png", "uploads/x/dk.png")).toBe("![dk](uploads/x/dk.png)");
    expect(markdownLink("notes.pdf", "uploads/x/notes.pdf")).toBe("[notes.pdf](uploads/x/notes.pdf)");
  });
});
