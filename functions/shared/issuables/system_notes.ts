import { notes } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/**
 * System notes on a noteable that is not an issue write (those go with the issue's own statement in
 * issues/queries/write.ts): alerts (`AlertManagement::Alert`) today. One note per body, each its own
 * discussion, in the caller's transaction.
 */
export async function createSystemNotes(
  tx: Executor,
  input: { noteableType: "AlertManagement::Alert"; noteableId: number; projectId: number; authorId: number; bodies: string[]; now?: Date },
): Promise<void> {
  if (!input.bodies.length) return;
  const now = input.now ?? new Date();
  await tx.insert(notes).values(
    input.bodies.map((note) => ({
      noteableType: input.noteableType,
      noteableId: input.noteableId,
      projectId: input.projectId,
      authorId: input.authorId,
      note,
      system: true,
      discussionId: [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join(""),
      createdAt: now,
      updatedAt: now,
    })),
  );
}
