import { describe, expect, inject, it } from "vitest";
import { fromBase64, toBase64, utf8 } from "../../../functions/shared/git/pure/bytes";
import {
  EMPTY_TREE,
  compareTreeEntries,
  decodeCommit,
  decodeTag,
  decodeTree,
  encodeCommit,
  encodeTag,
  encodeTree,
  hashObject,
  parseIdent,
  tzMinutes,
  tzText,
  type ObjectType,
} from "../../../functions/shared/git/pure/objects";
import { isValidBranchName, isValidRefName } from "../../../functions/shared/git/pure/refnames";
import "../../helpers/git-oracle-types";

const fixtures = inject("gitFixtures");

describe("git object encoding (against the git CLI)", () => {
  it("hashes every fixture object to the id git gave it", async () => {
    const mismatches: string[] = [];
    for (const object of fixtures.objects) {
      const oid = await hashObject(object.type as ObjectType, fromBase64(object.data));
      if (oid !== object.oid) mismatches.push(object.oid);
    }
    expect(fixtures.objects.length).toBeGreaterThan(1000);
    expect(mismatches).toEqual([]);
  });

  it("re-encodes every tree, commit and tag to the same id", async () => {
    const mismatches: string[] = [];
    const counts = { tree: 0, commit: 0, tag: 0 };
    for (const object of fixtures.objects) {
      const body = fromBase64(object.data);
      let encoded: Uint8Array;
      if (object.type === "tree") encoded = encodeTree([...decodeTree(body)].reverse());
      else if (object.type === "commit") encoded = encodeCommit(decodeCommit(body));
      else if (object.type === "tag") encoded = encodeTag(decodeTag(body));
      else continue;
      counts[object.type]++;
      if ((await hashObject(object.type, encoded)) !== object.oid) mismatches.push(`${object.type} ${object.oid}`);
    }
    expect(mismatches).toEqual([]);
    expect(counts.commit).toBe(fixtures.commitCount);
    expect(counts.tag).toBeGreaterThanOrEqual(3);
  });

  it("decodes commits: parents, identities with offsets, verbatim messages", () => {
    const commits = fixtures.objects.filter((o) => o.type === "commit").map((o) => decodeCommit(fromBase64(o.data)));
    expect(commits.some((c) => c.parents.length > 2)).toBe(true); // octopus
    expect(commits.filter((c) => c.parents.length === 0)).toHaveLength(2); // two roots
    expect(commits.some((c) => c.message.includes("\r\n"))).toBe(true);
    expect(commits.some((c) => !c.message.endsWith("\n"))).toBe(true);
    expect(commits.some((c) => c.author.name === "Carol Ünïcode")).toBe(true);
    expect(new Set(commits.map((c) => c.committer.tz))).toContain("+0530");
  });

  it("orders tree entries as git does: a tree sorts as if its name ended in /", () => {
    const entries = [
      { mode: "40000", name: "foo", oid: EMPTY_TREE },
      { mode: "100644", name: "foo.c", oid: EMPTY_TREE },
      { mode: "100644", name: "foo0", oid: EMPTY_TREE },
    ];
    expect([...entries].sort(compareTreeEntries).map((e) => e.name)).toEqual(["foo.c", "foo", "foo0"]);
    expect(decodeTree(encodeTree(entries)).map((e) => e.name)).toEqual(["foo.c", "foo", "foo0"]);
  });

  it("parses and formats identities and offsets", () => {
    expect(parseIdent("A U Thor <a@example.com> 1600000000 -0330")).toEqual({ name: "A U Thor", email: "a@example.com", time: 1600000000, tz: "-0330" });
    expect(tzMinutes("+0530")).toBe(330);
    expect(tzMinutes("-0330")).toBe(-210);
    expect(tzText(-210)).toBe("-0330");
    expect(tzText(0)).toBe("+0000");
  });

  it("round-trips base64 and decodes leniently like Ruby", () => {
    const bytes = utf8.encode("héllo wörld\n");
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    expect(new TextDecoder().decode(fromBase64("aGVs\nbG8="))).toBe("hello");
  });
});

describe("reference names", () => {
  it("follows git check-ref-format and GitLab's branch rules", () => {
    for (const ok of ["main", "feature/x", "v1.0", "a-b_c", "ünï"]) expect(isValidBranchName(ok)).toBe(true);
    for (const bad of ["", "HEAD", "-x", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", "a\\b", "x.lock", "a/.b", "a/", "/a", "a//b", "a@{1}", "refs/heads/x", "a."]) {
      expect(isValidBranchName(bad), bad).toBe(false);
    }
    expect(isValidRefName("refs/tags/v1")).toBe(true);
    expect(isValidRefName("@")).toBe(false);
  });
});
