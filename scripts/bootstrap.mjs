// Idempotent first-start data (ARCHITECTURE.md §9): root (id 1, admin), its personal namespace,
// the application settings row, and root's personal access token.
// `db` is anything with `query(text, params) => Promise<{ rows }>`: a pg Client or a PGlite instance.
import { createHash, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export const ROOT_SCOPES = ["api", "read_api", "read_user", "sudo", "admin_mode"];

export function sha256Hex(value) {
  return createHash("sha256").update(value).digest("hex");
}

/** A `glpat-` token with 20 random URL-safe characters, as GitLab's. */
export function generateToken(prefix = "glpat-") {
  return prefix + randomBytes(15).toString("base64url");
}

/**
 * @param {{ query(text: string, params?: unknown[]): Promise<{ rows: any[] }> }} db
 * @param {{ initialRootToken?: string }} options
 * @returns {Promise<{ rootToken: string | null }>} the token when one was generated now (printed once)
 */
export async function bootstrap(db, { initialRootToken } = {}) {
  await db.query("BEGIN");
  try {
    await db.query(
      `INSERT INTO users (id, username, name, email, state, admin, confirmed_at)
       OVERRIDING SYSTEM VALUE
       VALUES (1, 'root', 'Administrator', 'admin@example.com', 'active', true, now())
       ON CONFLICT DO NOTHING`,
    );
    await db.query(`SELECT setval(pg_get_serial_sequence('users', 'id'), GREATEST((SELECT max(id) FROM users), 1))`);
    await db.query(
      `INSERT INTO namespaces (type, name, path, full_path, full_name, owner_id, visibility_level)
       SELECT 'User', 'Administrator', 'root', 'root', 'Administrator', 1, 20
       WHERE NOT EXISTS (SELECT 1 FROM namespaces WHERE type = 'User' AND owner_id = 1)`,
    );
    await db.query(`INSERT INTO application_settings (id) VALUES (1) ON CONFLICT DO NOTHING`);

    let rootToken = null;
    if (initialRootToken) {
      await db.query(
        `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes)
         VALUES (1, 'initial root token', $1, $2) ON CONFLICT (token_digest) DO NOTHING`,
        [sha256Hex(initialRootToken), ROOT_SCOPES],
      );
    } else {
      const { rows } = await db.query(`SELECT 1 FROM personal_access_tokens WHERE user_id = 1 LIMIT 1`);
      if (rows.length === 0) {
        rootToken = generateToken();
        await db.query(
          `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes) VALUES (1, 'initial root token', $1, $2)`,
          [sha256Hex(rootToken), ROOT_SCOPES],
        );
      }
    }
    await db.query("COMMIT");
    return { rootToken };
  } catch (error) {
    await db.query("ROLLBACK");
    throw error;
  }
}

// Run directly (deployments): `DATABASE_URL=… [INITIAL_ROOT_TOKEN=…] node scripts/bootstrap.mjs`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("DATABASE_URL is required");
    process.exit(2);
  }
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rootToken } = await bootstrap(client, { initialRootToken: process.env.INITIAL_ROOT_TOKEN || undefined });
    console.log(rootToken ? `root personal access token (shown once): ${rootToken}` : "bootstrap done (root and its token already exist)");
  } finally {
    await client.end();
  }
}
