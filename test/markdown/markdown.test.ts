import { describe, expect, it } from "vitest";
import { labels, milestones, projects } from "../../db/schema";
import { eq } from "drizzle-orm";
import { BASE, statusAndBody } from "../helpers/client";
import { commit, queryCount, type Json } from "../helpers/api";
import { insertMergeRequest } from "../helpers/noteables";
import { requiresAuthentication } from "../helpers/shared";
import { world, type TestUser, type World } from "../helpers/world";

const render = async (w: World, user: TestUser | null, json: Json) => {
  const res = await (user ? w.as(user) : w.anonymous).post("/markdown", { json });
  return res;
};
const html = async (res: Response) => {
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).html as string;
};

describe("POST /markdown", () => {
  requiresAuthentication((w) => w.anonymous.post("/markdown", { json: { text: "x" } }));

  it("answers 400 when text is missing", async () => {
    const w = await world();
    expect(await statusAndBody(await render(w, w.stranger, {}))).toEqual([400, { error: "text is missing" }]);
  });

  it("answers 404 Project Not Found for an unknown path and for a project the caller may not read, with or without gfm", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    for (const body of [
      { text: "Hello world!", gfm: true, project: "Dummy project" },
      { text: "Hello world!", gfm: true, project: project.fullPath },
      { text: "Hello world!", project: project.fullPath },
      { text: "Hello world!", project: String(project.id) },
    ]) {
      expect(await statusAndBody(await render(w, w.stranger, body))).toEqual([404, { message: "404 Project Not Found" }]);
    }
  });

  it("renders plain Markdown without gfm: no emoji, no references", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    await w.issue(project);
    const res = await render(w, owner, { text: ":tada: Hello world! :100: #1", project: project.fullPath });
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await html(res)).toBe("<p>:tada: Hello world! :100: #1</p>");
  });

  it("renders GitLab Flavored Markdown: emoji, and #1 linked to the issue in the project's context only", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner] });
    const issue = await w.issue(project, { title: "First <issue>" });
    const text = ":tada: Hello world! :100: #1";
    const withProject = await html(await render(w, owner, { text, gfm: true, project: project.fullPath }));
    expect(withProject).toContain('data-name="tada"');
    expect(withProject).toContain('data-name="100"');
    expect(withProject).toContain(
      `<a href="${BASE}/${project.fullPath}/-/issues/1" data-reference-type="issue" data-original="#1" data-link="false" data-link-reference="false" data-project="${project.id}" data-issue="${issue.id}" data-project-path="${project.fullPath}" data-iid="1" data-issue-type="issue" data-container="body" data-placement="top" title="First &lt;issue&gt;" class="gfm gfm-issue">#1</a>`,
    );
    const without = await html(await render(w, owner, { text, gfm: true }));
    expect(without).toContain("#1</p>");
    expect(without).not.toContain("<a href=");
  });

  it("accepts a read_api token, as the endpoint only reads", async () => {
    const w = await world();
    const reader = await w.user({ scopes: ["read_api"] });
    expect(await html(await render(w, reader, { text: "**b**" }))).toBe("<p><strong>b</strong></p>");
  });

  it("renders tables, strikethrough, autolinks, task lists, anchors and code blocks", async () => {
    const w = await world();
    const out = await html(
      await render(w, w.stranger, {
        gfm: true,
        text: "# Hello, World!\n\n| a | b |\n|:-:|---|\n| 1 | ~~gone~~ |\n\n- [ ] todo\n- [x] done\n\nsee https://example.com/x\n\n```ruby\nputs 1\n```\n",
      }),
    );
    expect(out).toContain('<h1>\n<a id="user-content-hello-world" class="anchor" href="#hello-world" aria-hidden="true"></a>Hello, World!</h1>');
    expect(out).toContain('<th align="center">a</th>');
    expect(out).toContain("<del>gone</del>");
    expect(out).toContain('<ul class="task-list">');
    expect(out).toContain('<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled> todo</li>');
    expect(out).toContain('<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" checked disabled> done</li>');
    expect(out).toContain('<a href="https://example.com/x">https://example.com/x</a>');
    expect(out).toContain('<pre class="code highlight js-syntax-highlight language-ruby" lang="ruby" v-pre="true"><code><span id="LC1" class="line" lang="ruby">puts 1</span></code></pre>');
  });

  it("drops scripts, event handlers and javascript: URLs", async () => {
    const w = await world();
    const out = await html(
      await render(w, w.stranger, {
        gfm: true,
        text: '<script>alert(1)</script> <img src="x.png" onerror="alert(2)"> <a href="javascript:alert(3)">a</a> <a href="jav&#x09;ascript:alert(4)">b</a> [c](javascript:alert(5))',
      }),
    );
    expect(out).not.toMatch(/<script|onerror|href="\s*javascript:/i);
    expect(out).toContain('<img src="x.png">');
  });
});

describe("POST /markdown references", () => {
  async function setup() {
    const w = await world();
    const author = await w.user();
    const guest = await w.user();
    const reporter = await w.user();
    const group = await w.group();
    const project = await w.project({ group, visibility: "public", guests: [guest], reporters: [reporter] });
    const secret = await w.issue(project, { title: "Confidential title", confidential: true, authorId: author.id });
    return { w, author, guest, reporter, group, project, secret };
  }

  it("links a confidential issue only for its author, reporters and admins; others see plain text", async () => {
    const { w, author, guest, reporter, project } = await setup();
    const text = "about #1";
    for (const user of [w.stranger, guest]) {
      const out = await html(await render(w, user, { text, gfm: true, project: project.fullPath }));
      expect(out).toBe("<p>about #1</p>");
    }
    for (const user of [author, reporter]) {
      const out = await html(await render(w, user, { text, gfm: true, project: project.fullPath }));
      expect(out).toContain('title="Confidential title" class="gfm gfm-issue">#1</a>');
    }
  });

  it("links merge requests, labels, milestones, users and groups, with GitLab's classes and attributes", async () => {
    const { w, author, reporter, group, project } = await setup();
    const mr = await insertMergeRequest(w, project, { authorId: author.id, state: "merged" });
    const [label] = await w.db((db) => db.insert(labels).values({ projectId: project.id, title: "to do", color: "#FF0000", description: "Work" }).returning());
    const [groupLabel] = await w.db((db) => db.insert(labels).values({ groupId: group.id, title: "bug", color: "#EEEEEE" }).returning());
    const [milestone] = await w.db((db) => db.insert(milestones).values({ projectId: project.id, iid: 1, title: "v1.0" }).returning());
    const text = `!${mr.iid} ~"to do" ~bug %v1.0 @${author.username} @${group.fullPath} ~missing @nobody_${Date.now()}`;
    const out = await html(await render(w, reporter, { text, gfm: true, project: project.fullPath }));
    expect(out).toContain(
      `<a href="${BASE}/${project.fullPath}/-/merge_requests/${mr.iid}" data-reference-type="merge_request" data-original="!${mr.iid}" data-link="false" data-link-reference="false" data-project="${project.id}" data-merge-request="${mr.id}" data-project-path="${project.fullPath}" data-iid="${mr.iid}" data-container="body" data-placement="top" title="A change" class="gfm gfm-merge_request">!${mr.iid} (merged)</a>`,
    );
    expect(out).toContain(
      `<span class="gl-label gl-label-sm"><a href="${BASE}/${project.fullPath}/-/issues?label_name=to%20do" data-reference-type="label" data-original="~&quot;to do&quot;" data-link="false" data-link-reference="false" data-project="${project.id}" data-label="${label.id}" data-container="body" data-placement="top" title="Work" class="gfm gfm-label has-tooltip gl-link gl-label-link"><span class="gl-label-text gl-label-text-light" data-container="body" data-html="true" style="background-color: #FF0000">to do</span></a></span>`,
    );
    expect(out).toContain(`data-label="${groupLabel.id}"`);
    expect(out).toContain('class="gl-label-text gl-label-text-dark"');
    expect(out).toContain(`href="${BASE}/${project.fullPath}/-/milestones/1" data-reference-type="milestone"`);
    expect(out).toContain(`data-milestone="${milestone.id}"`);
    expect(out).toContain(`<a href="${BASE}/${author.username}" data-reference-type="user" data-user="${author.id}" data-container="body" data-placement="top" class="gfm gfm-project_member js-user-link" title="${author.name}">@${author.username}</a>`);
    expect(out).toContain(`data-group="${group.id}"`);
    expect(out).toContain(" ~missing @nobody_");
  });

  it("resolves cross-project references only in projects the caller may read", async () => {
    const { w, reporter, project } = await setup();
    const member = await w.user();
    const hidden = await w.project({ visibility: "private", reporters: [member] });
    await w.issue(hidden, { title: "Hidden title" });
    const text = `${hidden.fullPath}#1`;
    const forStranger = await html(await render(w, reporter, { text, gfm: true, project: project.fullPath }));
    expect(forStranger).toBe(`<p>${hidden.fullPath}#1</p>`);
    const forMember = await html(await render(w, member, { text, gfm: true }));
    expect(forMember).toContain(`title="Hidden title" class="gfm gfm-issue">${hidden.fullPath}#1</a>`);
  });

  it("links a commit by its sha prefix for those who read the code", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owners: [owner], visibility: "private" });
    const sha = await commit(w, owner, project, "main", "Add a file\n\nbody", [{ action: "create", file_path: "a.txt", content: "a" }]);
    const out = await html(await render(w, owner, { text: `fixed in ${sha.slice(0, 10)}`, gfm: true, project: project.fullPath }));
    expect(out).toContain(
      `<a href="${BASE}/${project.fullPath}/-/commit/${sha}" data-reference-type="commit" data-original="${sha.slice(0, 10)}" data-link="false" data-link-reference="false" data-project="${project.id}" data-commit="${sha}" data-container="body" data-placement="top" title="Add a file" class="gfm gfm-commit has-tooltip">${sha.slice(0, 8)}</a>`,
    );
    const guest = await w.user();
    await w.addMembers("Project", project.id, { guests: [guest] });
    expect(await html(await render(w, guest, { text: sha.slice(0, 10), gfm: true, project: project.fullPath }))).toBe(`<p>${sha.slice(0, 10)}</p>`);
  });

  it("looks references up in a fixed number of statements, whatever their number", async () => {
    const { w, reporter, project } = await setup();
    for (let i = 0; i < 5; i++) await w.issue(project);
    const count = async (text: string) => queryCount(await render(w, reporter, { text, gfm: true, project: project.fullPath }));
    const one = await count("#2 !1 ~a %b @c");
    const many = await count("#2 #3 #4 #5 #6 !1 !2 ~a ~b %b %c @c @d");
    expect(many).toBe(one);
  });

  it("leaves a disabled issue tracker's issues as text", async () => {
    const { w, reporter, project } = await setup();
    await w.issue(project, { title: "Open title" });
    await w.db((db) => db.update(projects).set({ issuesEnabled: false }).where(eq(projects.id, project.id)));
    const out = await html(await render(w, reporter, { text: "#2", gfm: true, project: project.fullPath }));
    expect(out).toBe("<p>#2</p>");
  });
});
