import { boolean, date, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";

export const users = pgTable(
  "users",
  {
    id: id(),
    username: text().notNull(),
    name: text().notNull(),
    email: text().notNull(),
    /** Devise reconfirmable: a changed e-mail waits here until confirmed (PUT /users/:id without skip_reconfirmation). */
    unconfirmedEmail: text(),
    /** PBKDF2-SHA256 digest `pbkdf2$<iterations>$<salt b64>$<hash b64>`; null when never set. */
    encryptedPassword: text(),
    passwordExpiresAt: timestamptz(),
    state: text().notNull().default("active"), // active | blocked
    admin: boolean().notNull().default(false),
    external: boolean().notNull().default(false),
    /** GitLab's user_type: null for humans, else "bot", "alert_bot", "support_bot", "project_bot"… */
    userType: text(),
    bio: text().notNull().default(""),
    location: text().notNull().default(""),
    publicEmail: text(),
    commitEmail: text(),
    messenger: text().notNull().default(""),
    professionalProfile: text().notNull().default(""),
    socialHandle: text().notNull().default(""),
    websiteUrl: text().notNull().default(""),
    organization: text().notNull().default(""),
    jobTitle: text().notNull().default(""),
    note: text(),
    avatarUrl: text(),
    projectsLimit: integer().notNull().default(100000),
    canCreateGroup: boolean().notNull().default(true),
    themeId: integer().notNull().default(1),
    colorSchemeId: integer().notNull().default(1),
    privateProfile: boolean().notNull().default(false),
    twoFactorEnabled: boolean().notNull().default(false),
    viewDiffsFileByFile: boolean().notNull().default(false),
    sharedRunnersMinutesLimit: integer(),
    extraSharedRunnersMinutesLimit: integer(),
    confirmedAt: timestamptz(),
    lastSignInAt: timestamptz(),
    currentSignInAt: timestamptz(),
    lastSignInIp: text(),
    currentSignInIp: text(),
    signInCount: integer().notNull().default(0),
    /** Devise lockable: wrong passwords since the last good one; 10 lock the account (web sign-in). */
    failedAttempts: integer().notNull().default(0),
    /** Devise lockable: when the 10th wrong password locked the account; it unlocks 10 minutes later. */
    lockedAt: timestamptz(),
    lastActivityOn: date({ mode: "string" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_users_on_lower_username").on(sql`lower(${t.username})`),
    uniqueIndex("index_users_on_lower_email").on(sql`lower(${t.email})`),
    index("index_users_on_state_and_id").on(t.state, t.id),
    index("index_users_on_created_at_and_id").on(t.createdAt, t.id),
  ],
);

export const identities = pgTable(
  "identities",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    provider: text().notNull(),
    externUid: text().notNull(),
    samlProviderId: integer(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_identities_on_user_id_and_provider").on(t.userId, t.provider),
    index("index_identities_on_provider_and_extern_uid").on(t.provider, t.externUid),
  ],
);

export const userCustomAttributes = pgTable(
  "user_custom_attributes",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
  },
  (t) => [uniqueIndex("index_user_custom_attributes_on_user_id_and_key").on(t.userId, t.key)],
);

export const personalAccessTokens = pgTable(
  "personal_access_tokens",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** SHA-256 hex of the token; the token itself is never stored. */
    tokenDigest: text().notNull(),
    scopes: text().array().notNull(),
    expiresAt: date({ mode: "string" }),
    revoked: boolean().notNull().default(false),
    /** GitLab's impersonation tokens: made by an administrator (POST /users/:user_id/impersonation_tokens) and acting as the user. */
    impersonation: boolean().notNull().default(false),
    lastUsedAt: timestamptz(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_personal_access_tokens_on_token_digest").on(t.tokenDigest),
    index("index_personal_access_tokens_on_user_id_and_id").on(t.userId, t.id),
  ],
);

export type User = typeof users.$inferSelect;
export type Identity = typeof identities.$inferSelect;
export type PersonalAccessToken = typeof personalAccessTokens.$inferSelect;

/**
 * Web sessions (functions/web/session.ts): the cookie holds a random secret, the row its SHA-256
 * digest, so a leaked table reveals no cookie. Ends at `expiresAt` (GitLab's `session_expire_delay`,
 * one week) or at sign-out, which deletes the row.
 */
export const webSessions = pgTable(
  "web_sessions",
  {
    id: id(),
    sessionDigest: text().notNull(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ip: text(),
    userAgent: text(),
    createdAt: createdAt(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [uniqueIndex("index_web_sessions_on_session_digest").on(t.sessionDigest), index("index_web_sessions_on_user_id").on(t.userId)],
);
export type WebSession = typeof webSessions.$inferSelect;
