import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Actor, Ctx } from "./env";

/** What every entity may need besides its row: where URLs point, who asks, and when. */
export type PresentContext = {
  baseUrl: string;
  actor: Actor | null;
  now: Date;
};

export function presentContext(c: Ctx): PresentContext {
  return { baseUrl: baseUrl(c), actor: c.var.actor, now: new Date() };
}

/** `EXTERNAL_URL` when set, else the request's own scheme, host and port (docs/compat.md, "Transport", T7). */
export function baseUrl(c: Ctx): string {
  if (c.env.EXTERNAL_URL) return c.env.EXTERNAL_URL.replace(/\/+$/, "");
  return new URL(c.req.url).origin;
}

export function webUrl(ctx: PresentContext, path: string): string {
  return `${ctx.baseUrl}/${path.replace(/^\/+/, "")}`;
}

/** ISO 8601 UTC with milliseconds: `2024-05-01T10:00:00.000Z`; null stays null. */
export function isoTime(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString();
}

/** `YYYY-MM-DD`. */
export function isoDate(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  return (value instanceof Date ? value : new Date(value)).toISOString().slice(0, 10);
}

/**
 * Renders one value or a list through an entity: `present(c, rows, projectEntity, { namespaces })`.
 * The entity receives the presentation context merged with `extra`.
 */
export function present<T, X extends object = object>(
  c: Ctx,
  value: T | T[],
  entity: (row: T, ctx: PresentContext & X) => unknown,
  extra?: X,
  status: ContentfulStatusCode = 200,
) {
  const ctx = { ...presentContext(c), ...(extra ?? ({} as X)) };
  const body = Array.isArray(value) ? value.map((row) => entity(row, ctx)) : entity(value, ctx);
  return c.json(body as object, status);
}

/** ActiveSupport's `Array#to_sentence` (GitLab's messages and system notes): `a`, `a and b`, `a, b, and c`. */
export function toSentence(items: string[]): string {
  if (items.length <= 1) return items.join("");
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}
