import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

/**
 * SSH keys, as GitLab's single-table `keys`: `type` is null for user keys and `DeployKey` for deploy
 * keys. Stored as an SSH server needs them: the normalised `<algorithm> <base64>` line, the algorithm,
 * its size, and both fingerprints (MD5 hex with colons, SHA256 base64 without padding or prefix).
 */
export const keys = pgTable(
  "keys",
  {
    id: id(),
    /** The owner of a user key; for a deploy key, the user who created it (null once they are gone). */
    userId: integer().references(() => users.id, { onDelete: "cascade" }),
    type: text(), // null (user key) | "DeployKey"
    title: text().notNull(),
    /** `<algorithm> <base64> [comment]`, whitespace-normalised, one line. */
    key: text().notNull(),
    /** sshpk type: rsa | dsa | ecdsa | ed25519. */
    algorithm: text().notNull(),
    bits: integer().notNull(),
    fingerprint: text().notNull(),
    fingerprintSha256: text().notNull(),
    /** auth_and_signing | auth | signing (GitLab's `usage_type` enum). */
    usageType: text().notNull().default("auth_and_signing"),
    /** Deploy keys only: `public` deploy keys may be enabled on any project by its maintainers. */
    public: boolean().notNull().default(false),
    expiresAt: timestamptz(),
    lastUsedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_keys_on_fingerprint_sha256").on(t.fingerprintSha256),
    index("index_keys_on_fingerprint").on(t.fingerprint),
    index("index_keys_on_user_id_and_id").on(t.userId, t.id),
    index("index_keys_on_type_and_id").on(t.type, t.id),
  ],
);

export const deployKeysProjects = pgTable(
  "deploy_keys_projects",
  {
    id: id(),
    deployKeyId: integer().notNull().references(() => keys.id, { onDelete: "cascade" }),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    canPush: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_deploy_keys_projects_on_project_id_and_deploy_key_id").on(t.projectId, t.deployKeyId),
    index("index_deploy_keys_projects_on_deploy_key_id").on(t.deployKeyId),
  ],
);

export type Key = typeof keys.$inferSelect;
export type DeployKeysProject = typeof deployKeysProjects.$inferSelect;
