/** Every statement of the issues domain (relations of issue rows: shared/issuables/issue_preload.ts). */
export * from "./list";
export * from "./write";
export * from "./events";

/** Postgres 23505, also when Drizzle wraps the driver's error in `cause`. */
export function uniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}
export * from "./participants";
export * from "./move";
export * from "./reorder";
