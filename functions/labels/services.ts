import type { Label, Namespace } from "../../db/schema";
import type { Database } from "../kernel/db";
import * as q from "./queries";

/** Labels::PromoteService#execute: the group label and every merged project label's links, in one transaction. */
export async function promoteLabel(db: Database, label: Label, group: Pick<Namespace, "id">): Promise<Label> {
  return db.transaction((tx) => q.promoteLabel(tx, label, group));
}
