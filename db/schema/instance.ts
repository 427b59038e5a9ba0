import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

/** The single application settings row (id 1). Columns are added as the settings they hold get used. */
export const applicationSettings = pgTable("application_settings", {
  id: integer().primaryKey(),
  adminMode: boolean().notNull().default(false),
  defaultProjectsLimit: integer().notNull().default(100000),
  defaultProjectVisibility: text().notNull().default("private"),
  defaultGroupVisibility: text().notNull().default("private"),
  issuesCreateLimit: integer().notNull().default(300),
  notesCreateLimit: integer().notNull().default(300),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export type ApplicationSettings = typeof applicationSettings.$inferSelect;
