import { describe, expect, it } from "vitest";
import { PackWriter } from "../../functions/shared/git/pack/pack";
import { FLUSH, pkt } from "../../functions/shared/git/pack/pktline";
import { blobObject, commitObject, deflate, treeObject, TYPE_CODE, type RawObject } from "../../functions/shared/git/pure/objects";
import { regexError } from "../../functions/shared/push_rules";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { world, type TestProject, type TestUser } from "../helpers/world";
import type { Json } from "../helpers/api";

const basic = (u: TestUser) => `Basic ${btoa(`anyone:${u.token}`)}`;
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/**
 * Pushes one root commit with `message` by `email` as the new branch `branch` (its files: `README.md`,
 * or `files` with a directory level), the report text.
 */
async function push(user: TestUser, project: TestProject, opts: { branch?: string; message?: string; email?: string; files?: Record<string, Uint8Array> }) {
  const objects: RawObject[] = [];
  const dirs = new Map<string, { mode: string; name: string; oid: string }[]>();
  for (const [path, content] of Object.entries(opts.files ?? { "README.md": new TextEncoder().encode("hello\n") })) {
    const blob = await blobObject(content);
    objects.push(blob);
    const slash = path.lastIndexOf("/");
    const dir = slash < 0 ? "" : path.slice(0, slash);
    dirs.set(dir, [...(dirs.get(dir) ?? []), { mode: "100644", name: path.slice(slash + 1), oid: blob.oid }]);
  }
  const rootEntries = dirs.get("") ?? [];
  for (const [dir, entries] of dirs) {
    if (dir === "") continue;
    const sub = await treeObject(entries);
    objects.push(sub);
    rootEntries.push({ mode: "40000", name: dir, oid: sub.oid });
  }
  const tree = await treeObject(rootEntries);
  const ident = { name: "Pusher", email: opts.email ?? "pusher@example.com", time: 1_700_000_000, tz: "+0000" };
  const commit = await commitObject({ tree: tree.oid, parents: [], author: ident, committer: ident, message: opts.message ?? "Add README\n", extraHeaders: [] });
  objects.push(commit, tree);
  const writer = new PackWriter();
  const pack = concat([writer.header(objects.length), ...objects.map((o) => writer.entry(TYPE_CODE[o.type], o.body.length, deflate(o.body))), writer.trailer()]);
  const command = pkt(`${"0".repeat(40)} ${commit.oid} refs/heads/${opts.branch ?? "main"}\0report-status side-band-64k\n`);
  const res = await worker.fetch(
    new Request(`${BASE}/${project.fullPath}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: basic(user), "Content-Type": "application/x-git-receive-pack-request" },
      body: concat([command, FLUSH, pack]),
    }),
  );
  expect(res.status).toBe(200);
  return new TextDecoder().decode(await res.arrayBuffer());
}

describe("POST /projects/:id/push_rule", () => {
  it("creates the rule with every field, once", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const res = await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { commit_message_regex: "^JIRA-\\d+", deny_delete_tag: true, max_file_size: 5 } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(
      ["author_email_regex", "branch_name_regex", "commit_committer_check", "commit_message_negative_regex", "commit_message_regex", "created_at", "deny_delete_tag", "file_name_regex", "id", "max_file_size", "member_check", "prevent_secrets", "project_id", "reject_unsigned_commits"].sort(),
    );
    expect(body).toMatchObject({ project_id: project.id, commit_message_regex: "^JIRA-\\d+", deny_delete_tag: true, max_file_size: 5, member_check: false, branch_name_regex: null });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { member_check: true } }))).toEqual([422, { message: "Project push rule exists" }]);
  });

  it("answers GitLab's 400s", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: {} }))).toEqual([
      400,
      {
        error:
          "deny_delete_tag, member_check, prevent_secrets, commit_message_regex, commit_message_negative_regex, branch_name_regex, author_email_regex, file_name_regex, max_file_size, commit_committer_check, reject_unsigned_commits are missing, at least one parameter must be provided",
      },
    ]);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { max_file_size: -1 } }))).toEqual([400, { error: "max_file_size is invalid" }]);
    const [status, body] = await statusAndBody(await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { branch_name_regex: "(a+)+$" } }));
    expect([status, Object.keys((body as { message: Json }).message)]).toEqual([400, ["branch_name_regex"]]);
  });

  it("is for maintainers: 403 for developers, 404 for strangers, 401 anonymous", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    expect(await statusAndBody(await w.as(dev).post(`/projects/${project.id}/push_rule`, { json: { member_check: true } }))).toEqual([403, { message: "403 Forbidden" }]);
    expect(await statusAndBody(await w.as(w.stranger).get(`/projects/${project.id}/push_rule`))).toEqual([404, { message: "404 Project Not Found" }]);
    expect(await statusAndBody(await w.anonymous.get(`/projects/${project.id}/push_rule`))).toEqual([401, { message: "401 Unauthorized" }]);
  });
});

describe("GET, PUT, DELETE /projects/:id/push_rule", () => {
  it("reads null before a rule, changes only what is sent, deletes with 204", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const none = await w.as(owner).get(`/projects/${project.id}/push_rule`);
    expect([none.status, await none.json()]).toEqual([200, null]);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${project.id}/push_rule`, { json: { member_check: true } }))).toEqual([404, { message: "404 Push Rule Not Found" }]);
    await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { branch_name_regex: "^feature/" } });
    const put = await w.as(owner).put(`/projects/${project.id}/push_rule`, { json: { member_check: true } });
    expect((await put.json()) as Json).toMatchObject({ branch_name_regex: "^feature/", member_check: true });
    expect((await w.as(owner).delete(`/projects/${project.id}/push_rule`)).status).toBe(204);
    expect(await statusAndBody(await w.as(owner).delete(`/projects/${project.id}/push_rule`))).toEqual([404, { message: "404 Push Rule Not Found" }]);
  });
});

describe("/groups/:id/push_rule", () => {
  it("is created, read, updated and deleted by maintainers; 404 without a rule", async () => {
    const w = await world();
    const maintainer = await w.user();
    const dev = await w.user();
    const group = await w.group({ maintainers: [maintainer], developers: [dev] });
    const api = w.as(maintainer);
    expect(await statusAndBody(await api.get(`/groups/${group.id}/push_rule`))).toEqual([404, { message: "404 Push Rule Not Found" }]);
    const made = await api.post(`/groups/${group.id}/push_rule`, { json: { author_email_regex: "@example\\.com$" } });
    expect(made.status).toBe(201);
    expect(Object.keys((await made.json()) as Json)).not.toContain("project_id");
    expect(await statusAndBody(await api.post(`/groups/${group.id}/push_rule`, { json: { member_check: true } }))).toEqual([422, { message: "Group push rule exists, try updating" }]);
    expect(((await (await api.put(`/groups/${group.id}/push_rule`, { json: { deny_delete_tag: true } })).json()) as Json).deny_delete_tag).toBe(true);
    expect(await statusAndBody(await w.as(dev).get(`/groups/${group.id}/push_rule`))).toEqual([403, { message: "403 Forbidden" }]);
    expect((await api.delete(`/groups/${group.id}/push_rule`)).status).toBe(204);
  });
});

describe("push rules on git push", () => {
  it("declines commits and branches that break the project's rule, with GitLab's messages", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { commit_message_regex: "^JIRA-\\d+", branch_name_regex: "^(main|feature/.*)$" } });
    const bad = await push(owner, project, { message: "fix things\n" });
    expect(bad).toContain("GitLab: Commit message does not follow the pattern '^JIRA-\\d+'");
    expect(bad).toContain("ng refs/heads/main pre-receive hook declined");
    const badBranch = await push(owner, project, { branch: "topic", message: "JIRA-1 ok\n" });
    expect(badBranch).toContain("GitLab: Branch name does not follow the pattern '^(main|feature/.*)$'");
    const good = await push(owner, project, { message: "JIRA-12 add readme\n" });
    expect(good).toContain("ok refs/heads/main");
  });

  it("applies the group's rule to its projects without their own", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, maintainers: [owner] });
    await w.as(owner).post(`/groups/${group.id}/push_rule`, { json: { author_email_regex: "@corp\\.example$", commit_message_negative_regex: "WIP" } });
    expect(await push(owner, project, { email: "someone@gmail.example" })).toContain(
      "GitLab: Author's commit email 'someone@gmail.example' does not follow the pattern '@corp\\.example$'",
    );
    expect(await push(owner, project, { email: "me@corp.example", message: "WIP stuff\n" })).toContain("GitLab: Commit message contains the forbidden pattern 'WIP'");
    expect(await push(owner, project, { email: "me@corp.example" })).toContain("ok refs/heads/main");
  });

  it("checks members and committers by their emails", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { member_check: true } });
    expect(await push(owner, project, { email: "ghost@nowhere.example" })).toContain("GitLab: Author 'ghost@nowhere.example' is not a member of team");
    expect(await push(owner, project, { email: owner.email })).toContain("ok refs/heads/main");
  });
});

describe("push rules on the pushed files", () => {
  it("declines new files by file_name_regex and the secrets list, and blobs over max_file_size (MiB)", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    await w.as(owner).post(`/projects/${project.id}/push_rule`, { json: { file_name_regex: "\\.exe$", prevent_secrets: true, max_file_size: 1 } });
    const text = (s: string) => new TextEncoder().encode(s);
    expect(await push(owner, project, { files: { "README.md": text("a\n"), "bin/tool.exe": text("MZ") } })).toContain(
      'GitLab: File name bin/tool.exe was prohibited by the pattern "\\\\.exe$".',
    );
    expect(await push(owner, project, { files: { "aws/credentials": text("k") } })).toContain('GitLab: File name aws/credentials was prohibited by the pattern "aws\\\\/credentials$".');
    expect(await push(owner, project, { files: { "ssh/id_ed25519": text("k") } })).toContain('GitLab: File name ssh/id_ed25519 was prohibited by the pattern "id_ed25519$".');
    const big = new Uint8Array(1024 * 1024 + 1);
    const report = await push(owner, project, { files: { "assets/big.bin": big } });
    expect(report).toContain('GitLab: File "assets/big.bin" is larger than the allowed size of 1 MB. Use Git LFS to manage this file.');
    expect(report).toContain("ng refs/heads/main pre-receive hook declined");
    expect(await push(owner, project, { files: { "assets/exact.bin": new Uint8Array(1024 * 1024), "keys/id_rsa.pub": text("ssh-rsa") } })).toContain("ok refs/heads/main");
  });
});

describe("push rules on the files API and branch creation", () => {
  it("answers 400 with the hook's message for a file the rule refuses, and for a branch name", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    const file = (path: string) => `/projects/${project.id}/repository/files/${encodeURIComponent(path)}`;
    expect((await api.post(file("README.md"), { json: { branch: "main", content: "x", commit_message: "init" } })).status).toBe(201);
    await api.post(`/projects/${project.id}/push_rule`, { json: { prevent_secrets: true, commit_message_regex: "^docs", branch_name_regex: "^feature/" } });
    expect(await statusAndBody(await api.post(file("deploy/secret.key"), { json: { branch: "main", content: "k", commit_message: "docs: key" } }))).toEqual([
      400,
      { message: 'File name deploy/secret.key was prohibited by the pattern "\\\\.(pem|key)$".' },
    ]);
    expect(await statusAndBody(await api.put(file("README.md"), { json: { branch: "main", content: "y", commit_message: "update" } }))).toEqual([
      400,
      { message: "Commit message does not follow the pattern '^docs'" },
    ]);
    expect(await statusAndBody(await api.delete(file("README.md"), { json: { branch: "main", commit_message: "remove" } }))).toEqual([
      400,
      { message: "Commit message does not follow the pattern '^docs'" },
    ]);
    expect((await api.put(file("README.md"), { json: { branch: "main", content: "y", commit_message: "docs: update" } })).status).toBe(200);
    const branches = `/projects/${project.id}/repository/branches`;
    expect(await statusAndBody(await api.post(branches, { json: { branch: "topic", ref: "main" } }))).toEqual([400, { message: "Branch name does not follow the pattern '^feature/'" }]);
    // An existing name wins over the pattern (Branches::ValidateNewService runs before the hook).
    expect(await statusAndBody(await api.post(branches, { json: { branch: "main", ref: "main" } }))).toEqual([400, { message: "Branch already exists" }]);
    expect((await api.post(branches, { json: { branch: "feature/a", ref: "main" } })).status).toBe(201);
  });

  it("lets a tag be deleted through the API under deny_delete_tag, as GitLab (the rule is for git push)", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    const api = w.as(owner);
    await api.post(`/projects/${project.id}/repository/files/a.txt`, { json: { branch: "main", content: "x", commit_message: "init" } });
    expect((await api.post(`/projects/${project.id}/repository/tags`, { json: { tag_name: "v1", ref: "main" } })).status).toBe(201);
    await api.post(`/projects/${project.id}/push_rule`, { json: { deny_delete_tag: true } });
    expect((await api.delete(`/projects/${project.id}/repository/tags/v1`)).status).toBe(204);
  });
});

describe("push rule patterns", () => {
  it("are refused when backtracking could explode, or RE2 lacks the construct", () => {
    expect(regexError("^JIRA-\\d+")).toBeNull();
    expect(regexError("^(feature|fix)/[a-z0-9-]+$")).toBeNull();
    expect(regexError("(a+)+$")).toMatch(/too complex/);
    expect(regexError("(a|aa)*b")).toMatch(/too complex/);
    expect(regexError("(x)\\1")).toMatch(/not valid RE2 syntax/);
    expect(regexError("foo(?=bar)")).toMatch(/not valid RE2 syntax/);
    expect(regexError("[")).toMatch(/not valid RE2 syntax/);
  });
});
