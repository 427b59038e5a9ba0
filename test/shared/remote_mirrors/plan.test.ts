import { describe, expect, it } from "vitest";
import { parseAdvertisement, parseReport, planMirror } from "../../../functions/shared/remote_mirrors/push";
import { safeUrl, splitCredentials, urlErrors } from "../../../functions/shared/remote_mirrors/url";
import { FLUSH, pkt } from "../../../functions/shared/git/pack/pktline";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const Z = "0".repeat(40);
const ref = (name: string, target: string) => ({ name, target, peeled: null });
const all = { branchInScope: () => true, keepDivergentRefs: false };
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe("planMirror (Gitaly's UpdateRemoteMirror)", () => {
  it("creates, forces and deletes heads and tags, and leaves other refs and equal ones alone", async () => {
    const local = [ref("refs/heads/main", A), ref("refs/heads/new", B), ref("refs/tags/v1", C), ref("refs/heads/same", C)];
    const remote = new Map([
      ["refs/heads/main", B],
      ["refs/heads/same", C],
      ["refs/heads/gone", A],
      ["refs/merge-requests/1/head", A],
    ]);
    const plan = await planMirror(local, remote, all, async () => false);
    expect(plan).toEqual({
      commands: [
        { ref: "refs/heads/gone", old: A, new: Z },
        { ref: "refs/heads/main", old: B, new: A },
        { ref: "refs/heads/new", old: Z, new: B },
        { ref: "refs/tags/v1", old: Z, new: C },
      ],
      divergent: [],
    });
  });

  it("with keep_divergent_refs: only fast-forwards, reports the others, deletes nothing", async () => {
    const local = [ref("refs/heads/ff", A), ref("refs/heads/diverged", B)];
    const remote = new Map([
      ["refs/heads/ff", C],
      ["refs/heads/diverged", C],
      ["refs/heads/extra", C],
    ]);
    const plan = await planMirror(local, remote, { branchInScope: () => true, keepDivergentRefs: true }, async (_theirs, ours) => ours.name === "refs/heads/ff");
    expect(plan).toEqual({ commands: [{ ref: "refs/heads/ff", old: C, new: A }], divergent: ["refs/heads/diverged"] });
  });

  it("with only_protected_branches: other branches are neither pushed nor deleted; tags always are", async () => {
    const local = [ref("refs/heads/main", A), ref("refs/heads/topic", B), ref("refs/tags/v1", C)];
    const remote = new Map([["refs/heads/old-topic", C]]);
    const plan = await planMirror(local, remote, { branchInScope: (b) => b === "main", keepDivergentRefs: false }, async () => true);
    expect(plan.commands.map((c) => c.ref)).toEqual(["refs/heads/main", "refs/tags/v1"]);
  });
});

describe("the receive-pack wire", () => {
  it("reads the advertisement's refs and capabilities, and an empty repository's", async () => {
    const body = concat([pkt("# service=git-receive-pack\n"), FLUSH, pkt(`${A} refs/heads/main\0report-status delete-refs side-band-64k\n`), pkt(`${B} refs/tags/v1\n`), pkt(`${C} refs/tags/v1^{}\n`), FLUSH]);
    const parsed = await parseAdvertisement(body);
    expect([...parsed.refs]).toEqual([["refs/heads/main", A], ["refs/tags/v1", B]]);
    expect([...parsed.peeled]).toEqual([["refs/tags/v1", C]]);
    expect([...parsed.capabilities]).toEqual(["report-status", "delete-refs", "side-band-64k"]);
    const empty = await parseAdvertisement(concat([pkt("# service=git-receive-pack\n"), FLUSH, pkt(`${Z} capabilities^{}\0report-status\n`), FLUSH]));
    expect(empty.refs.size).toBe(0);
    await expect(parseAdvertisement(new TextEncoder().encode("<html>"))).rejects.toThrow();
  });

  it("turns report-status into git's refusal lines", async () => {
    expect(await parseReport(concat([pkt("unpack ok\n"), pkt("ok refs/heads/main\n"), FLUSH]))).toEqual([]);
    expect(await parseReport(concat([pkt("unpack ok\n"), pkt("ng refs/heads/main pre-receive hook declined\n"), FLUSH]))).toEqual([
      " ! [remote rejected] refs/heads/main (pre-receive hook declined)",
    ]);
    expect(await parseReport(concat([pkt("unpack index-pack failed\n"), FLUSH]))).toEqual(["error: remote unpack failed: index-pack failed"]);
  });
});

describe("mirror URLs", () => {
  it("splits the credentials off, decoded, and masks them as GitLab's safe_url", () => {
    const split = splitCredentials("https://us%40er:p%3Ass@example.com/a.git");
    expect(split).toEqual({ url: "https://example.com/a.git", credentials: { user: "us@er", password: "p:ss" } });
    expect(safeUrl(split.url, split.credentials)).toBe("https://*****:*****@example.com/a.git");
    expect(safeUrl("https://example.com/a.git", { user: "git" })).toBe("https://git@example.com/a.git");
    expect(urlErrors("  ", { allowLocal: false })).toEqual(["can't be blank"]);
    expect(urlErrors("http://127.0.0.1/a.git", { allowLocal: true })).toEqual([]);
    expect(urlErrors("http://127.0.0.1/a.git", { allowLocal: false, allowlist: ["127.0.0.1"] })).toEqual([]);
  });
});
