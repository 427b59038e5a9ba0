import type { NeonDatabase } from "drizzle-orm/neon-serverless";
import type * as schema from "../../db/schema";

/** The request's database (kernel/db.ts opens it); re-exported by db.ts, where its users import it. */
export type Database = NeonDatabase<typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Either the request's database or a transaction on it: queries accept both. */
export type Executor = Database | Transaction;
