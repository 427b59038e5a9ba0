import { index, integer, pgTable, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

/**
 * GitLab's `user_statuses`: at most one status per user (`user_id` is the key, as UserStatus's
 * `primary_key`). `availability` is the enum `not_set` (0) / `busy` (1); `clear_status_at` is when the
 * status stops being shown (`clear_status_after` presets).
 */
export const userStatuses = pgTable("user_statuses", {
  userId: integer()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  emoji: text().notNull().default("speech_balloon"),
  message: text(),
  availability: smallint().notNull().default(0),
  clearStatusAt: timestamptz(),
});

/** GitLab's `emails`: a user's secondary e-mail addresses, stored lower-case, unique across users. */
export const emails = pgTable(
  "emails",
  {
    id: id(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text().notNull(),
    confirmedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_emails_on_email").on(t.email), index("index_emails_on_user_id_and_id").on(t.userId, t.id)],
);

/**
 * GitLab's `gpg_keys`: an armored OpenPGP public key with its primary key's fingerprint and key id
 * (upper-case hex), both unique as in GitLab.
 */
export const gpgKeys = pgTable(
  "gpg_keys",
  {
    id: id(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text().notNull(),
    fingerprint: text().notNull(),
    primaryKeyid: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_gpg_keys_on_fingerprint").on(t.fingerprint),
    uniqueIndex("index_gpg_keys_on_primary_keyid").on(t.primaryKeyid),
    // The armored text is long: uniqueness of `key` is kept on its digest.
    uniqueIndex("index_gpg_keys_on_key_md5").on(sql`md5(${t.key})`),
    index("index_gpg_keys_on_user_id_and_id").on(t.userId, t.id),
  ],
);

/** GitLab's `project_custom_attributes` (admins' key/value pairs on projects). */
export const projectCustomAttributes = pgTable(
  "project_custom_attributes",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_project_custom_attributes_on_project_id_and_key").on(t.projectId, t.key)],
);

export type UserStatus = typeof userStatuses.$inferSelect;
export type Email = typeof emails.$inferSelect;
export type GpgKey = typeof gpgKeys.$inferSelect;
