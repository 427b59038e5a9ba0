// Push rules on commits made through the API: GitLab's pre-receive hook runs on them too (Gitaly's
// UserCommitFiles), and lib/api/commits.rb answers its refusal as 400 `{"message": …}`.
import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { commitOn, commitsPath, smallRepo } from "../helpers/commits";
import { world } from "../helpers/world";

const queryCount = (res: Response) => Number(res.headers.get("x-query-count"));
const create = (path: string, content = "x\n") => ({ action: "create", file_path: path, content });

describe("POST /projects/:id/repository/commits under a push rule", () => {
  it("refuses a commit whose message, author email or new branch breaks the rule, with GitLab's messages", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(`/projects/${project.id}/push_rule`, {
      json: { commit_message_regex: "^JIRA-\\d+", commit_message_negative_regex: "WIP", author_email_regex: "@corp\\.example$", branch_name_regex: "^(main|feature/.*)$" },
    });
    const post = async (json: Record<string, unknown>) =>
      statusAndBody(await api.post(commitsPath(project), { json: { branch: "main", author_email: "me@corp.example", actions: [create(`f${Math.random()}.txt`)], ...json } }));
    expect(await post({ commit_message: "fix" })).toEqual([400, { message: "Commit message does not follow the pattern '^JIRA-\\d+'" }]);
    expect(await post({ commit_message: "JIRA-1 WIP" })).toEqual([400, { message: "Commit message contains the forbidden pattern 'WIP'" }]);
    expect(await post({ commit_message: "JIRA-1", author_email: "me@gmail.example" })).toEqual([
      400,
      { message: "Author's commit email 'me@gmail.example' does not follow the pattern '@corp\\.example$'" },
    ]);
    expect(await post({ commit_message: "JIRA-1", branch: "topic", start_branch: "main" })).toEqual([400, { message: "Branch name does not follow the pattern '^(main|feature/.*)$'" }]);
    // The pattern holds new branches only; the message's pattern is matched line by line (multiline).
    const [status] = await post({ commit_message: "Summary\nJIRA-2", branch: "feature/x", start_branch: "main" });
    expect(status).toBe(201);
    expect((await post({ commit_message: "JIRA-3" }))[0]).toBe(201);
    // Nothing was written by the refused commits: main moved once.
    const log = (await (await api.get(commitsPath(project), { query: { ref_name: "main", per_page: 2 } })).json()) as { message: string }[];
    expect(log.map((c) => c.message)).toEqual(["JIRA-3", "Update README"]);
  });

  it("refuses new files by file_name_regex and the secrets list, and blobs over max_file_size", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(`/projects/${project.id}/push_rule`, { json: { file_name_regex: "\\.exe$", prevent_secrets: true, max_file_size: 1 } });
    const post = async (actions: unknown[]) => statusAndBody(await api.post(commitsPath(project), { json: { branch: "main", commit_message: "files", actions } }));
    expect(await post([create("bin/tool.exe")])).toEqual([400, { message: 'File name bin/tool.exe was prohibited by the pattern "\\\\.exe$".' }]);
    expect(await post([create("keys/id_rsa")])).toEqual([400, { message: 'File name keys/id_rsa was prohibited by the pattern "id_rsa$".' }]);
    expect(await post([create("home/.bash_history")])).toEqual([400, { message: 'File name home/.bash_history was prohibited by the pattern "[._]history$".' }]);
    expect(await post([{ action: "move", previous_path: "docs/a.md", file_path: "docs/server.pem" }])).toEqual([
      400,
      { message: 'File name docs/server.pem was prohibited by the pattern "\\\\.(pem|key)$".' },
    ]);
    // Public keys and look-alikes pass (GitLab's own examples).
    await commitOn(api, project, "main", "fine", [create("any/id_rsa.pub"), create("docs/aws/credentials.md"), create("ending_withhistory")]);
    // max_file_size is in MiB and a file of exactly the limit passes (`bytes_to_megabytes(size) > max`).
    const mib = "a".repeat(1024 * 1024);
    await commitOn(api, project, "main", "exactly 1 MiB", [create("big/exact.bin", mib)]);
    expect(await post([{ action: "update", file_path: "README.md", content: `${mib}b` }])).toEqual([
      400,
      { message: 'File "README.md" is larger than the allowed size of 1 MB. Use Git LFS to manage this file.' },
    ]);
    // An existing file is not "new": updating a file the list would refuse is allowed.
    await api.put(`/projects/${project.id}/push_rule`, { json: { file_name_regex: "README" } });
    await commitOn(api, project, "main", "update", [{ action: "update", file_path: "README.md", content: "ok\n" }]);
  });

  it("checks members by the author email; reject_unsigned_commits lets GitLab's own commits through", async () => {
    const w = await world();
    const { api, project, owner } = await smallRepo(w);
    await api.post(`/projects/${project.id}/push_rule`, { json: { member_check: true, reject_unsigned_commits: true } });
    const post = async (json: Record<string, unknown>) => statusAndBody(await api.post(commitsPath(project), { json: { branch: "main", commit_message: "m", actions: [create(`m${Math.random()}`)], ...json } }));
    expect(await post({ author_email: "ghost@nowhere.example" })).toEqual([400, { message: "Author 'ghost@nowhere.example' is not a member of team" }]);
    expect((await post({ author_email: owner.email }))[0]).toBe(201);
  });

  it("follows the group's rule when the project has none", async () => {
    const w = await world();
    const owner = await w.user();
    const group = await w.group({ owners: [owner] });
    const project = await w.project({ group, maintainers: [owner] });
    const api = w.as(owner);
    await api.post(`/groups/${group.id}/push_rule`, { json: { commit_message_regex: "^feat" } });
    expect(await statusAndBody(await api.post(commitsPath(project), { json: { branch: "main", commit_message: "x", actions: [create("a")] } }))).toEqual([
      400,
      { message: "Commit message does not follow the pattern '^feat'" },
    ]);
    await commitOn(api, project, "main", "feat: a", [create("a")]);
  });

  it("reads the rule in the state read: the pinned statement count holds with a rule", async () => {
    const w = await world();
    const { api, project } = await smallRepo(w);
    await api.post(`/projects/${project.id}/push_rule`, { json: { commit_message_regex: "^ok", file_name_regex: "\\.exe$", member_check: true } });
    const res = await api.post(commitsPath(project), { json: { branch: "main", commit_message: "ok", actions: [create("x/one.txt")] } });
    expect(res.status).toBe(201);
    // The same budget as without a rule (test/commits/statements.test.ts): token, project, state read, write.
    expect(queryCount(res)).toBeLessThanOrEqual(4);
  });
});
