import type { AwardRow } from "../entities/award_emoji";
import type { Executor } from "../kernel/db";
import { emojiName, emojiOnlyName } from "../shared/issuables/emoji";
import type { Actor } from "../kernel/env";
import { notFound } from "../kernel/errors";
import { insertAward, toggleAward } from "../shared/issuables/award_writes";
import { insertNote } from "../shared/issuables/note_writes";
import { canAwardEmoji, checkNoteBody, noteErrors, noteUser, type Noteable, type NoteRow, type RowNoteable } from "../shared/issuables/noteables";
import { newDiscussionId } from "../shared/issuables/system_notes";

export type CreatedNote =
  | { kind: "note"; note: NoteRow; commandsChanges: Record<string, string> }
  | { kind: "award"; award: AwardRow }
  | { kind: "commands"; commandsChanges: Record<string, string>; summary: string[] };

/** Noteables whose notes run quick actions (QuickActionsService#supported?). */
const QUICK_ACTION_TYPES = new Set(["Issue", "MergeRequest", "Epic"]);

/**
 * The `/award :emoji:` quick action lines of a body (the only quick action built here): the body
 * without them, and the emoji named by the last one (null when its argument names no emoji).
 * Differs from GitLab: other quick actions (`/close`, `/assign` …) are not executed; they stay text.
 */
export function extractAward(body: string): { content: string; found: boolean; name: string | null } {
  let found = false;
  let name: string | null = null;
  const kept: string[] = [];
  for (const line of body.split("\n")) {
    const command = /^\/award(?:\s+(.*?))?\s*$/i.exec(line);
    if (!command) {
      kept.push(line);
      continue;
    }
    found = true;
    const emoji = /^:([a-z0-9_+\-]+):$/.exec(command[1] ?? "");
    name = emoji && emojiName(emoji[1]) ? emoji[1] : null;
  }
  return { content: kept.join("\n").trim(), found, name };
}

/**
 * Notes::CreateService for a single comment (its own new discussion). A body made only of one award
 * emoji (`:thumbsup:`) awards that emoji instead of saving a note, when the caller may award it, and
 * the award is what the API returns.
 * Differs from GitLab: 15.4 saves such a body as a plain note (awarding is the `/award` quick action);
 * the spec's older behaviour is followed, including its answer to a second identical award
 * (`not_found!("Note #{errors}")`).
 */
export async function createNote(
  db: Executor,
  actor: Actor,
  n: RowNoteable,
  input: { body: string; confidential: boolean; createdAt: Date | null },
): Promise<CreatedNote> {
  const emoji = emojiOnlyName(input.body);
  if (emoji && canAwardEmoji(actor, n)) {
    const target = { type: n.type, id: n.id };
    const award = await insertAward(db, target, emoji, actor.user.id, target);
    if (!award) throw notFound(`Note {:name=>["has already been taken"]}`);
    return { kind: "award", award: Object.assign(award, { user: noteUser(actor.user) }) };
  }
  // Notes::CreateService#execute_quick_actions: commands run before the note is saved, and a body
  // made only of commands saves no note (202 with the changes, `process_note_creation_result`).
  let body = input.body;
  const commandsChanges: Record<string, string> = {};
  if (QUICK_ACTION_TYPES.has(n.type)) {
    const award = extractAward(input.body);
    if (award.found) {
      body = award.content;
      if (award.name && canAwardEmoji(actor, n)) {
        const normalized = emojiName(award.name)!;
        await toggleAward(db, { type: n.type, id: n.id }, normalized, actor.user.id);
        commandsChanges.emoji_award = award.name;
      }
      if (body === "") {
        if (!commandsChanges.emoji_award)
          throw noteErrors({ commands_only: ["Failed to apply commands."], commands: ["Failed to apply commands."] });
        return { kind: "commands", commandsChanges, summary: [`Toggled :${award.name}: emoji award.`] };
      }
      checkNoteBody(body);
    }
  }
  const note = await insertNote(db, {
    noteable: n,
    authorId: actor.user.id,
    body,
    confidential: input.confidential,
    type: null,
    discussionId: newDiscussionId(),
    resolvable: false,
    createdAt: input.createdAt,
  });
  return { kind: "note", note: Object.assign(note, { author: noteUser(actor.user), resolvedBy: null }), commandsChanges };
}
