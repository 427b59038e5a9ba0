import { draftlessTitle, isDraftTitle } from "./references";

/**
 * The text of the system notes a merge request update writes on the merge request
 * (Issuable::CommonSystemNotesService, MergeRequests::UpdateService#handle_changes, SystemNoteService).
 * Label, milestone and state changes are resource events instead (since 13.x), written by services.ts.
 */

/**
 * Gitlab::Diff::InlineDiff (a character diff, Gitlab::Diff::CharDiff over Diff::LCS) marked by
 * InlineDiffMarkdownMarker: removed runs of the old title as `{-…-}`, added runs of the new as `{+…+}`.
 */
export function markedTitles(before: string, after: string): [string, string] {
  const a = [...before];
  const b = [...after];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const removed = new Array<boolean>(a.length).fill(false);
  const added = new Array<boolean>(b.length).fill(false);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && lcs[i + 1][j] >= lcs[i][j + 1])) removed[i++] = true;
    else added[j++] = true;
  }
  const mark = (chars: string[], changed: boolean[], sign: string) =>
    chars.map((ch, k) => `${changed[k] && !changed[k - 1] ? `{${sign}` : ""}${ch}${changed[k] && !changed[k + 1] ? `${sign}}` : ""}`).join("");
  return [mark(a, removed, "-"), mark(b, added, "+")];
}

/** The merge request before and after an update, as far as its system notes look. */
export type NoteState = { title: string; description: string | null; targetBranch: string; discussionLocked: boolean };

/**
 * In GitLab's order: the draft status, the title (`change_title`, only when more than the draft prefix
 * changed), the description, the target branch (`change_branch`), the discussion lock.
 */
export function updateNoteBodies(before: NoteState, after: NoteState): string[] {
  const notes: string[] = [];
  if (after.title !== before.title) {
    if (isDraftTitle(before.title) !== isDraftTitle(after.title))
      notes.push(`marked this merge request as **${isDraftTitle(after.title) ? "draft" : "ready"}**`);
    if (draftlessTitle(before.title) !== draftlessTitle(after.title)) {
      const [from, to] = markedTitles(before.title, after.title);
      notes.push(`changed title from **${from}** to **${to}**`);
    }
  }
  if (after.description !== before.description) notes.push("changed the description");
  if (after.targetBranch !== before.targetBranch) notes.push(`changed target branch from \`${before.targetBranch}\` to \`${after.targetBranch}\``);
  if (after.discussionLocked !== before.discussionLocked) notes.push(`${after.discussionLocked ? "locked" : "unlocked"} this merge request`);
  return notes;
}
