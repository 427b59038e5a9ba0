import { gemoji } from "gemoji";
import * as z from "zod";
import type { UserStatus } from "../../db/schema";
import { isoTime } from "../kernel/present";

/** UserStatus's `availability` enum (app/models/user_status.rb). */
export const AVAILABILITIES = ["not_set", "busy"] as const;

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);

const EMOJI_BY_NAME = new Map(gemoji.flatMap((entry) => entry.names.map((name) => [name, entry] as const)));

/**
 * `message_html`: the message through Banzai's EmojiPipeline (`cache_markdown_field :message,
 * pipeline: :emoji`): HTML-escaped plain text (HtmlEntityFilter) whose `:name:` codes become
 * `<gl-emoji>` tags (EmojiFilter). Deliberate difference from GitLab: the tag has no
 * `data-unicode-version` (gemoji does not carry it), and emoji typed as characters stay characters.
 */
export function renderStatusMessage(message: string | null): string {
  if (!message) return "";
  return escapeHtml(message).replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => {
    const entry = EMOJI_BY_NAME.get(name);
    if (!entry) return whole;
    return `<gl-emoji title="${escapeHtml(entry.description)}" data-name="${escapeHtml(name)}">${entry.emoji}</gl-emoji>`;
  });
}

/**
 * API::Entities::UserStatus (lib/api/entities/user_status.rb, 15.4). A user without a status is
 * presented from `{}` as GitLab does: every field null and `message_html` "".
 */
export const UserStatusEntity = z
  .object({
    emoji: z.string().nullable(),
    availability: z.enum(AVAILABILITIES).nullable(),
    message: z.string().nullable(),
    message_html: z.string(),
    clear_status_at: z.string().nullable(),
  })
  .meta({ id: "UserStatus" });
export function userStatus(status: UserStatus | null): z.output<typeof UserStatusEntity> {
  return {
    emoji: status?.emoji ?? null,
    availability: status ? (AVAILABILITIES[status.availability] ?? "not_set") : null,
    message: status?.message ?? null,
    message_html: renderStatusMessage(status?.message ?? null),
    clear_status_at: isoTime(status?.clearStatusAt),
  };
}
