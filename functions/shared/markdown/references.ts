/**
 * GitLab's references in Markdown text (lib/banzai/filter/references/*: issue, merge request, label,
 * milestone, user, commit), as pure functions: find them in a text node, and write the link GitLab
 * writes for one that resolved. Resolution (what exists and what the caller may read) is in
 * `queries.ts`; `render.ts` runs the two around one batch of lookups.
 *
 * The patterns follow the models' `reference_pattern` (app/models/issue.rb, merge_request.rb, label.rb,
 * milestone.rb, user.rb, commit.rb): an optional `namespace/project` prefix (a cross-project
 * reference), then the kind's prefix character and its key.
 */

export type RefKind = "issue" | "merge_request" | "label" | "milestone" | "user" | "commit";

/** One reference found in a text: `path` is the project prefix as written (null: the context's). */
export type FoundRef = {
  kind: RefKind;
  path: string | null;
  /** The iid (issue, merge request, milestone by iid), label id, name, username or sha prefix. */
  key: string;
  /** `label` and `milestone`: whether `key` is an id/iid (`~12`, `%3`) rather than a name. */
  byId: boolean;
  /** The text as written (`group/project#12`, `~"to do"`). */
  original: string;
  index: number;
};

// Path characters of a namespace or project (Gitlab::PathRegex), at least `namespace/project`.
const PATH = String.raw`[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+`;
const LABEL = String.raw`~(?:(?<labelId>\d+)(?![\w-])|"(?<labelQuoted>[^"\n]+)"|(?<labelName>[A-Za-z0-9_\-?.&]*[A-Za-z0-9_\-&]))`;
const MILESTONE = String.raw`%(?:(?<milestoneIid>\d+)(?![\w-])|"(?<milestoneQuoted>[^"\n]+)"|(?<milestoneName>[^"\s<]+\b))`;
const REFERENCE = new RegExp(
  String.raw`(?<![\w.\/@~%#!&-])(?:` +
    // cross-project forms: path#1, path!1, path~label, path%milestone, path@sha
    String.raw`(?<path>${PATH})(?:#(?<xIssue>\d+)|!(?<xMr>\d+)|${LABEL.replace(/\?<label/g, "?<xLabel")}|${MILESTONE.replace(/\?<milestone/g, "?<xMilestone")}|@(?<xSha>[0-9a-fA-F]{7,40})(?![\w-]))` +
    String.raw`|#(?<issue>\d+)|!(?<mr>\d+)|${LABEL}|${MILESTONE}` +
    String.raw`|@(?<user>[A-Za-z0-9_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*)` +
    String.raw`|(?<sha>[0-9a-fA-F]{7,40})(?![\w-])` +
    `)`,
  "g",
);

/** The references of one text node, in order. */
export function findReferences(text: string): FoundRef[] {
  const found: FoundRef[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    const g = m.groups ?? {};
    let original = m[0];
    const path = g.path ?? null;
    const base = { path, original, index: m.index ?? 0 };
    if (g.issue ?? g.xIssue) found.push({ ...base, kind: "issue", key: (g.issue ?? g.xIssue)!, byId: true });
    else if (g.mr ?? g.xMr) found.push({ ...base, kind: "merge_request", key: (g.mr ?? g.xMr)!, byId: true });
    else if (g.labelId ?? g.xLabelId) found.push({ ...base, kind: "label", key: (g.labelId ?? g.xLabelId)!, byId: true });
    else if (g.labelQuoted ?? g.labelName ?? g.xLabelQuoted ?? g.xLabelName)
      found.push({ ...base, kind: "label", key: (g.labelQuoted ?? g.labelName ?? g.xLabelQuoted ?? g.xLabelName)!, byId: false });
    else if (g.milestoneIid ?? g.xMilestoneIid) found.push({ ...base, kind: "milestone", key: (g.milestoneIid ?? g.xMilestoneIid)!, byId: true });
    else if (g.milestoneQuoted ?? g.milestoneName ?? g.xMilestoneQuoted ?? g.xMilestoneName)
      found.push({ ...base, kind: "milestone", key: (g.milestoneQuoted ?? g.milestoneName ?? g.xMilestoneQuoted ?? g.xMilestoneName)!, byId: false });
    else if (g.xSha ?? g.sha) {
      const sha = (g.xSha ?? g.sha)!;
      // A run of digits is a number far more often than a commit; GitLab looks it up all the same.
      found.push({ ...base, kind: "commit", key: sha.toLowerCase(), byId: false });
    } else if (g.user) {
      // A username does not end with a dot (`@alice.` is alice at the end of a sentence).
      const user = g.user.replace(/[.]+$/, "");
      original = `@${user}`;
      found.push({ ...base, original, kind: "user", key: user, byId: false });
    }
  }
  return found;
}

/** What a resolved reference links to, as the filters' `object_link_filter` writes it. */
export type ResolvedRef =
  | { kind: "issue"; url: string; projectId: number; projectPath: string; id: number; iid: number; title: string; state: string; issueType: string }
  | { kind: "merge_request"; url: string; projectId: number; projectPath: string; id: number; iid: number; title: string; state: string }
  | { kind: "label"; url: string; parent: Parent; id: number; title: string; color: string; textColor: string; description: string | null }
  | { kind: "milestone"; url: string; parent: Parent; id: number; title: string; inProject: string | null }
  | { kind: "user"; url: string; userId: number; name: string }
  | { kind: "group"; url: string; groupId: number; name: string }
  | { kind: "commit"; url: string; projectId: number; sha: string; title: string; projectPrefix: string | null };

export type Parent = { project: number } | { group: number };

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

function data(attrs: Record<string, string | number | boolean | null | undefined>): string {
  return Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `data-${k.replace(/_/g, "-")}="${escapeHtml(String(v))}"`)
    .join(" ");
}

const parentData = (parent: Parent) => ("project" in parent ? { project: parent.project } : { group: parent.group, namespace: parent.group });

/**
 * The link of a resolved reference (AbstractReferenceFilter#object_link_filter and each filter's
 * overrides). Closed issues and merged or closed merge requests carry GitLab's IssuableStateFilter
 * suffix (`#1 (closed)`).
 */
export function referenceHtml(found: FoundRef, ref: ResolvedRef): string {
  const common = { original: found.original, link: false, link_reference: false };
  const text = escapeHtml(found.original);
  switch (ref.kind) {
    case "issue": {
      const attrs = data({ reference_type: "issue", ...common, project: ref.projectId, issue: ref.id, project_path: ref.projectPath, iid: ref.iid, issue_type: ref.issueType, container: "body", placement: "top" });
      return `<a href="${escapeHtml(ref.url)}" ${attrs} title="${escapeHtml(ref.title)}" class="gfm gfm-issue">${text}${ref.state === "closed" ? " (closed)" : ""}</a>`;
    }
    case "merge_request": {
      const attrs = data({ reference_type: "merge_request", ...common, project: ref.projectId, merge_request: ref.id, project_path: ref.projectPath, iid: ref.iid, container: "body", placement: "top" });
      const suffix = ref.state === "merged" ? " (merged)" : ref.state === "closed" ? " (closed)" : "";
      return `<a href="${escapeHtml(ref.url)}" ${attrs} title="${escapeHtml(ref.title)}" class="gfm gfm-merge_request">${text}${suffix}</a>`;
    }
    case "label": {
      const attrs = data({ reference_type: "label", ...common, ...parentData(ref.parent), label: ref.id, container: "body", placement: "top" });
      const tone = ref.textColor.toUpperCase() === "#FFFFFF" ? "gl-label-text-light" : "gl-label-text-dark";
      return (
        `<span class="gl-label gl-label-sm"><a href="${escapeHtml(ref.url)}" ${attrs} title="${escapeHtml(ref.description ?? "")}" class="gfm gfm-label has-tooltip gl-link gl-label-link">` +
        `<span class="gl-label-text ${tone}" data-container="body" data-html="true" style="background-color: ${escapeHtml(ref.color)}">${escapeHtml(ref.title)}</span></a></span>`
      );
    }
    case "milestone": {
      const attrs = data({ reference_type: "milestone", ...common, ...parentData(ref.parent), milestone: ref.id, container: "body", placement: "top" });
      const where = ref.inProject ? ` <i>in ${escapeHtml(ref.inProject)}</i>` : "";
      return `<a href="${escapeHtml(ref.url)}" ${attrs} title="" class="gfm gfm-milestone has-tooltip">${escapeHtml(ref.title)}${where}</a>`;
    }
    case "user":
      return `<a href="${escapeHtml(ref.url)}" ${data({ reference_type: "user", user: ref.userId, container: "body", placement: "top" })} class="gfm gfm-project_member js-user-link" title="${escapeHtml(ref.name)}">${text}</a>`;
    case "group":
      return `<a href="${escapeHtml(ref.url)}" ${data({ reference_type: "user", group: ref.groupId, container: "body", placement: "top" })} class="gfm gfm-project_member js-user-link" title="${escapeHtml(ref.name)}">${text}</a>`;
    case "commit": {
      const attrs = data({ reference_type: "commit", ...common, project: ref.projectId, commit: ref.sha, container: "body", placement: "top" });
      const shown = `${ref.projectPrefix ? `${ref.projectPrefix}@` : ""}${ref.sha.slice(0, 8)}`;
      return `<a href="${escapeHtml(ref.url)}" ${attrs} title="${escapeHtml(ref.title)}" class="gfm gfm-commit has-tooltip">${escapeHtml(shown)}</a>`;
    }
  }
}
