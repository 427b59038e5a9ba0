import { integer, timestamp } from "drizzle-orm/pg-core";

/** `integer generated always as identity`: ids are JSON numbers (docs/database.md, "Schema and migrations"). */
export const id = () => integer().primaryKey().generatedAlwaysAsIdentity();

export const createdAt = () => timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow();
export const updatedAt = () => timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow();
export const timestamptz = () => timestamp({ withTimezone: true, precision: 3 });

/** GitLab's Gitlab::VisibilityLevel values, stored as integers like GitLab does. */
export const VISIBILITY_LEVELS = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY_LEVELS;
