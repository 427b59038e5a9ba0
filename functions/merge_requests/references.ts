/**
 * Issue references in merge request text, as GitLab's reference extractor and
 * Gitlab::ClosingIssueExtractor (lib/gitlab/closing_issue_extractor.rb) find them: `#1`,
 * `proj#2` (a project of the same namespace), `group/proj#3`, and links to issues of this instance.
 * Pure: the caller resolves the paths to issues the author may read.
 */

/** One reference: the project's full path (lower-cased, for matching) and the issue iid. */
export type IssueRef = { path: string; iid: number };

export type RefContext = {
  /** Full path of the project the text belongs to. */
  projectPath: string;
  /** Full path of that project's namespace (relative references `proj#1` resolve inside it). */
  namespacePath: string;
  /** `EXTERNAL_URL` or the request's origin: links to issues are recognised on this host only. */
  baseUrl: string;
};

/** Gitlab::PathRegex: a path segment starts with a letter, digit, `_` or `.`. */
const SEGMENT = String.raw`[a-zA-Z0-9_.][a-zA-Z0-9_.\-]*`;
/** Project.reference_pattern: `(namespace/)*project`, not preceded by a path character. */
const PROJECT_REF = String.raw`(?<![a-zA-Z0-9_.\/\-])((?:${SEGMENT}\/)*${SEGMENT})`;
/** Issue.reference_pattern: an optional project, `#`, the iid. */
const SHORT_REF = String.raw`(?:${PROJECT_REF})?#(\d+)(?!\d)`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Issue.link_reference_pattern: `<base>/<full path>/-/issues/<iid>` (and the legacy `/issues/<iid>`). */
function linkRef(baseUrl: string): string {
  return String.raw`${escapeRegExp(baseUrl)}\/((?:${SEGMENT}\/)*${SEGMENT})\/(?:-\/)?issues\/(\d+)(?![\d\w])`;
}

/**
 * GitLab's default `issue_closing_pattern` (config/gitlab.yml.example, 15.4) with `%{issue_ref}`
 * replaced by a link or a short reference, as ClosingIssueExtractor builds ISSUE_CLOSING_REGEX.
 */
function closingPattern(baseUrl: string): RegExp {
  const issueRef = `(?:(?:${linkRef(baseUrl)})|(?:${SHORT_REF}))`;
  return new RegExp(
    String.raw`\b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +(?:(?:issues? +)?${issueRef}(?:(?: *,? +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)`,
    "g",
  );
}

/** References are not looked for in code (the extractor works on rendered Markdown). */
function withoutCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, " ").replace(/~~~[\s\S]*?~~~/g, " ").replace(/`[^`\n]*`/g, " ");
}

/** `full_project_path`: no path is this project; `proj` is a sibling in the namespace; `a/b` is absolute. */
function resolvePath(path: string | undefined, ctx: RefContext): string {
  if (!path) return ctx.projectPath.toLowerCase();
  if (path.includes("/")) return path.toLowerCase();
  return `${ctx.namespacePath}/${path}`.toLowerCase();
}

function uniqueRefs(refs: IssueRef[]): IssueRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = `${ref.path}#${ref.iid}`;
    if (seen.has(key) || ref.iid > 2147483647) return false;
    seen.add(key);
    return true;
  });
}

/** Every issue reference in `text` (cross references: `mentioned in merge request !1`). */
export function issueReferences(text: string | null | undefined, ctx: RefContext): IssueRef[] {
  if (!text) return [];
  const prose = withoutCode(text);
  const refs: IssueRef[] = [];
  for (const m of prose.matchAll(new RegExp(linkRef(ctx.baseUrl), "g"))) refs.push({ path: m[1].toLowerCase(), iid: Number(m[2]) });
  // Other URLs are links once rendered, and references inside links are not references (`page#1`).
  const withoutLinks = prose.replace(new RegExp(linkRef(ctx.baseUrl), "g"), " ").replace(/\bhttps?:\/\/\S+/g, " ");
  for (const m of withoutLinks.matchAll(new RegExp(SHORT_REF, "g"))) refs.push({ path: resolvePath(m[1], ctx), iid: Number(m[2]) });
  return uniqueRefs(refs);
}

/** The issues a text closes on merge (`Closes #1`, `Fixes group/proj#2, #3 and #4`). */
export function closingIssueReferences(text: string | null | undefined, ctx: RefContext): IssueRef[] {
  if (!text) return [];
  const statements = [...withoutCode(text).matchAll(closingPattern(ctx.baseUrl))].map((m) => m[0]);
  return issueReferences(statements.join(" "), ctx);
}

/**
 * MergeRequest::DRAFT_REGEX (15.4): `Gitlab::Regex.merge_request_draft` at the start of the title
 * (`[Draft]`, `(Draft)`, `Draft:`), or `merge_request_wip` anywhere (`[WIP]`, `WIP:`, a title `WIP`).
 */
const DRAFT = /^(?:\[draft\]|\(draft\)|draft:)|\[wip\]|wip:|^wip$/i;
const DRAFT_PREFIX = /(?:^(?:\[draft\]|\(draft\)|draft:)|\[wip\]\s*|wip:\s*|^wip$)+\s*/i;

/** `MergeRequest.draft?(title)`. */
export function isDraftTitle(title: string): boolean {
  return DRAFT.test(title);
}

/** `MergeRequest.draftless_title`: the title without its draft marker. */
export function draftlessTitle(title: string): string {
  return title.replace(DRAFT_PREFIX, "");
}
