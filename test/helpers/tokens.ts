import { generateToken, sha256Hex } from "../../functions/kernel/auth";
import { personalAccessTokens } from "../../db/schema";
import type { World } from "./world";

/** A personal access token made in the database; returns its value and id. */
export async function makeToken(
  w: World,
  userId: number,
  opts: { scopes?: string[]; expiresAt?: string | null; revoked?: boolean; name?: string } = {},
): Promise<{ token: string; id: number }> {
  const token = generateToken();
  const [row] = await w.db(async (db) =>
    db
      .insert(personalAccessTokens)
      .values({
        userId,
        name: opts.name ?? "made",
        tokenDigest: await sha256Hex(token),
        scopes: opts.scopes ?? ["api"],
        expiresAt: opts.expiresAt ?? null,
        revoked: !!opts.revoked,
      })
      .returning(),
  );
  return { token, id: row.id };
}

/** `YYYY-MM-DD`, `days` from today (UTC). */
export function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
