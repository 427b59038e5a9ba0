// Parameters of lib/api/commits.rb (GitLab 15.4), with Grape's messages.
import * as z from "zod";
import type { CommitAction } from "../shared/git";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

export const ListCommits = z.object({
  ref_name: p.string().optional().describe("The name of a repository branch or tag, if not given the default branch is used"),
  since: p.datetime().optional().describe("Only commits after or on this date will be returned"),
  until: p.datetime().optional().describe("Only commits before or on this date will be returned"),
  path: p.string().optional().describe("The file path"),
  all: p.bool().optional().describe("Every commit will be returned"),
  with_stats: p.bool().optional().describe("Stats about each commit will be added to the response"),
  first_parent: p.bool().optional().describe("Only include the first parent of merges"),
  order: p.oneOf("default", "topo").optional().describe("List commits in order"),
  trailers: p.bool().optional().describe("Parse and include Git trailers for every commit"),
  ...pageParams.shape,
});

export const GetCommit = z.object({ stats: p.bool().optional() });

export const CommitRefs = z.object({
  type: p.oneOf("branch", "tag", "all").optional().describe("Scope"),
  ...pageParams.shape,
});

export const CommitSequence = z.object({ first_parent: p.bool().optional() });

/** `requires :note`, `optional :path`; `given :path` also `requires :line` and `line_type` (default "new"). */
export const PostComment = z.object({ note: p.string(), path: p.string().optional() });
export const PostLineComment = z.object({
  note: p.string().describe("The text of the comment"),
  path: p.string().describe("The file path"),
  line: p.int().describe("The line number"),
  line_type: p.oneOf("new", "old").optional().describe("The type of the line"),
});

export const CherryPick = z.object({
  branch: p.nonBlank().describe("The name of the branch"),
  dry_run: p.bool().optional().describe("Does not commit any changes"),
  message: p.string().optional().describe("A custom commit message to use for the picked commit"),
});

export const Revert = z.object({
  branch: p.nonBlank().describe("Target branch name"),
  dry_run: p.bool().optional().describe("Does not commit any changes"),
});

// ---------------------------------------------------------------------------------------------
// `actions` of POST /repository/commits: a JSON array of objects or Rack's `actions[][action]=…`.

const ACTIONS = ["create", "update", "move", "delete", "chmod"] as const;
type ActionName = (typeof ACTIONS)[number];

const isHash = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const TRUE = new Set(["true", "t", "yes", "y", "on", "1"]);
const FALSE = new Set(["false", "f", "no", "n", "off", "0"]);

/** Grape's String coercion: scalars become text; anything else is invalid. */
function asString(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}

function asBool(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : null;
  if (typeof v !== "string") return null;
  const s = v.trim().toLowerCase();
  return TRUE.has(s) ? true : FALSE.has(s) ? false : null;
}

/**
 * Each element as Grape declares it: `action` (values), `file_path`; `previous_path` required for move;
 * `content` for create and move, required for update; `encoding` text|base64 (default text);
 * `last_commit_id` for update, move and delete; `execute_filemode` required for chmod. Parameters of a
 * `given` block whose condition fails are not declared, so they do not reach the service.
 */
const actionsParam = z.any().transform((raw, ctx): CommitAction[] => {
  if (raw === undefined || raw === null) {
    ctx.addIssue({ code: "custom", message: "is missing" });
    return z.NEVER;
  }
  const list = Array.isArray(raw) ? raw : isHash(raw) ? Object.values(raw) : null;
  if (!list) {
    ctx.addIssue({ code: "custom", message: "is invalid" });
    return z.NEVER;
  }
  const out: CommitAction[] = [];
  list.forEach((element, i) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: "custom", message, path: [i, field] });
    if (!isHash(element)) {
      ctx.addIssue({ code: "custom", message: "is invalid", path: [i] });
      return;
    }
    const field = (name: string, required: boolean): string | undefined => {
      const value = element[name];
      if (value === undefined) {
        if (required) issue(name, "is missing");
        return undefined;
      }
      const text = asString(value);
      if (text === null) {
        // JSON null: present but empty (a required one is reported missing by Grape's presence check).
        if (value === null) {
          if (required) issue(name, "is missing");
          return undefined;
        }
        issue(name, "is invalid");
        return undefined;
      }
      return text;
    };
    let action: ActionName | undefined;
    if (element.action === undefined) issue("action", "is missing");
    else {
      const text = asString(element.action);
      // Later GitLab declares `allow_blank: false` here; 15.4 failed with a 500 on a blank action.
      if (text === null && element.action !== null) issue("action", "is invalid");
      else if (text === null || text.trim() === "") issue("action", "is empty");
      else if (!(ACTIONS as readonly string[]).includes(text)) issue("action", "does not have a valid value");
      else action = text as ActionName;
    }
    const filePath = field("file_path", true);
    const previousPath = action === "move" ? field("previous_path", true) : undefined;
    const content = action === "update" ? field("content", true) : action === "create" || action === "move" ? field("content", false) : undefined;
    const encodingText = field("encoding", false);
    let encoding: "text" | "base64" = "text";
    if (encodingText !== undefined) {
      if (encodingText === "text" || encodingText === "base64") encoding = encodingText;
      else issue("encoding", "does not have a valid value");
    }
    const lastCommitId = action === "update" || action === "move" || action === "delete" ? field("last_commit_id", false) : undefined;
    let executeFilemode: boolean | undefined;
    if (action === "chmod") {
      const value = element.execute_filemode;
      if (value === undefined || value === null) issue("execute_filemode", "is missing");
      else {
        const bool = asBool(value);
        if (bool === null) issue("execute_filemode", "is invalid");
        else executeFilemode = bool;
      }
    }
    if (!action || filePath === undefined) return;
    out.push({
      action,
      filePath,
      previousPath: previousPath ?? null,
      content: content ?? null,
      encoding,
      lastCommitId: lastCommitId ?? null,
      executeFilemode: executeFilemode ?? null,
    });
  });
  return out;
});

export const CreateCommit = z.object({
  branch: p.nonBlank().describe("Name of the branch to commit into. To create a new branch, also provide either `start_branch` or `start_sha`, and optionally `start_project`."),
  commit_message: p.string().describe("Commit message"),
  actions: actionsParam.describe("Actions to perform in commit"),
  start_branch: p.string().optional().describe("Name of the branch to start the new branch from"),
  start_sha: p.string().optional().describe("SHA of the commit to start the new branch from"),
  start_project: p.string().optional().describe("The ID or path of the project to start the new branch from"),
  author_email: p.string().optional().describe("Author email for commit"),
  author_name: p.string().optional().describe("Author name for commit"),
  stats: p.bool().optional().describe("Include commit stats"),
  force: p.bool().optional().describe("When `true` overwrites the target branch with a new commit based on the `start_branch` or `start_sha`"),
});

/** `mutually_exclusive :start_branch, :start_sha`, declared right after them. */
export const createCommitRules = [{ mutuallyExclusive: ["start_branch", "start_sha"], before: "start_project" }];
