import { strFromU8 } from "fflate";
import type { Namespace, User } from "../../db/schema";
import type { Database, Executor } from "../kernel/db";
import type { Bindings } from "../kernel/env";
import { createGroup, creationFacts, hasErrors, rubyHash, validateGroup } from "../groups/public";
import { ArchiveError, readArchive } from "../project_import/public";
import { endGroupTransferJob, leaseGroupTransferJob } from "../shared/transfer_jobs";
import * as q from "./queries";

const OWNER = 50;

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const rec = (v: unknown): Rec | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : null);
const date = (v: unknown): string | null => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);

export const groupImportKey = (groupId: number, token: string) => `imports/group-${groupId}/${token}.tar.gz`;

/** A line-per-record file of the archive (`*.ndjson`), empty when absent. */
function ndjson(files: Map<string, Uint8Array>, path: string): unknown[] {
  const bytes = files.get(path);
  if (!bytes) return [];
  return strFromU8(bytes)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * Groups::CreateService for a group of the archive (the imported group itself is created by the
 * route): validated as POST /groups validates, visibility capped at the parent's. Null when the
 * archive's group is not a valid group there (GitLab logs it and goes on).
 */
async function createSubgroup(db: Database, user: User, parent: Namespace, attrs: Rec): Promise<Namespace | null> {
  const path = str(attrs.path) ?? "";
  const name = str(attrs.name) ?? path;
  const existing = await q.childGroup(db, parent.id, path);
  if (existing) return existing;
  const fullPath = `${parent.fullPath}/${path}`;
  const facts = await creationFacts(db, fullPath);
  const level = Math.min(int(attrs.visibility_level) ?? 0, parent.visibilityLevel);
  const description = str(attrs.description) ?? "";
  const errors = validateGroup({
    name, nameChanged: true, path, pathChanged: true, description, ancestorCount: parent.traversalIds.length, visibilityLevel: level,
    parentVisibilityLevel: parent.visibilityLevel, maxChildVisibility: null, maxProjectVisibility: null, twoFactorGracePeriod: 0, pathTaken: facts.taken,
  });
  if (hasErrors(errors)) return null;
  return createGroup(
    db,
    facts.nextId,
    parent.traversalIds,
    { name, path, fullPath, fullName: `${parent.fullName} / ${name}`, parentId: parent.id, visibilityLevel: level, description, shareWithGroupLock: parent.shareWithGroupLock },
    user.id,
  );
}

/** GroupRestorer's relations of one group, with user references mapped (unmatched ones become the importer). */
const emailOf = (m: Rec) => (str(rec(m.user)?.public_email) ?? str(rec(m.user)?.email))?.toLowerCase() ?? null;
const memberRecordsOf = (files: Map<string, Uint8Array>, oldId: number) =>
  ndjson(files, `tree/groups/${oldId}/members.ndjson`).map(rec).filter((r): r is Rec => r !== null);

/** MembersMapper's users for every group of the archive, in one statement: email → user id. */
async function usersOfEmails(db: Executor, files: Map<string, Uint8Array>, oldIds: number[]): Promise<Map<string, number>> {
  const emails = oldIds.flatMap((id) => memberRecordsOf(files, id).map(emailOf)).filter((e): e is string => e !== null);
  const userOfEmail = new Map<string, number>();
  for (const u of await q.usersByEmail(db, [...new Set(emails)])) {
    userOfEmail.set(u.email.toLowerCase(), u.id);
    if (u.publicEmail) userOfEmail.set(u.publicEmail.toLowerCase(), u.id);
  }
  return userOfEmail;
}

function relationsOf(files: Map<string, Uint8Array>, oldId: number, importer: number, userOfEmail: Map<string, number>): q.GroupRelations {
  const dir = `tree/groups/${oldId}`;
  const memberRecords = memberRecordsOf(files, oldId);
  const userMap = new Map<number, number>();
  const memberRows: q.GroupRelations["members"] = [];
  for (const m of memberRecords) {
    const email = emailOf(m);
    const userId = email ? userOfEmail.get(email) : undefined;
    const oldUser = int(rec(m.user)?.id ?? m.user_id);
    const level = int(m.access_level);
    if (userId === undefined || level === null || level <= 0) continue;
    if (oldUser !== null) userMap.set(oldUser, userId);
    // The importer is already the group's Owner (Groups::CreateService).
    if (userId !== importer) memberRows.push({ userId, accessLevel: Math.min(level, OWNER), expiresAt: date(m.expires_at), createdById: importer });
  }
  const mapUser = (old: unknown) => userMap.get(int(old) ?? -1) ?? importer;
  const records = (name: string) => ndjson(files, `${dir}/${name}.ndjson`).map(rec).filter((r): r is Rec => r !== null);
  return {
    members: memberRows,
    labels: records("labels").flatMap((l) => (str(l.title) ? [{ title: str(l.title)!, color: str(l.color) ?? "#6699cc", description: str(l.description) }] : [])),
    milestones: records("milestones").flatMap((m) =>
      int(m.iid) !== null && str(m.title)
        ? [{ iid: int(m.iid)!, title: str(m.title)!, description: str(m.description), state: m.state === "closed" ? "closed" : "active", dueDate: date(m.due_date), startDate: date(m.start_date) }]
        : [],
    ),
    badges: records("badges").flatMap((b) => (str(b.link_url) && str(b.image_url) ? [{ name: str(b.name), linkUrl: str(b.link_url)!, imageUrl: str(b.image_url)! }] : [])),
    epics: records("epics").flatMap((e) =>
      int(e.iid) !== null && str(e.title)
        ? [{
            iid: int(e.iid)!,
            authorId: mapUser(e.author_id),
            title: str(e.title)!,
            description: str(e.description),
            state: e.state === "closed" ? "closed" : "opened",
            confidential: e.confidential === true,
            startDate: date(e.start_date),
            dueDate: date(e.due_date),
            startDateIsFixed: e.start_date_is_fixed === true,
            dueDateIsFixed: e.due_date_is_fixed === true,
            closedAt: e.state === "closed" && str(e.closed_at) ? new Date(str(e.closed_at)!) : null,
            parentIid: int(rec(e.parent)?.iid),
            labelTitles: (Array.isArray(e.label_links) ? e.label_links : []).map((l) => str(rec(rec(l)?.label)?.title)).filter((t): t is string => t !== null),
          }]
        : [],
    ),
  };
}

/**
 * Runs one group import job (Groups::ImportExport::ImportService in the queue consumer): reads the
 * archive, rebuilds the subgroup tree under the imported group, then each group's relations in one
 * transaction. A broken archive fails the job with its reason.
 */
export async function runGroupImport(db: Database, env: Bindings, jobId: number, leaseSeconds = 600): Promise<"done" | "skipped"> {
  const job = await leaseGroupTransferJob(db, jobId, "import", leaseSeconds);
  if (!job) return "skipped";
  const fail = async (error: string) => {
    await endGroupTransferJob(db, job.id, { error });
    return "done" as const;
  };
  const root = await q.groupById(db, job.groupId);
  const importer = job.userId !== null ? await q.importer(db, job.userId) : null;
  if (!root || !importer) return fail("The group or its importer no longer exists");
  const object = job.r2Key ? await env.BLOBS.get(job.r2Key) : null;
  if (!object) return fail("The import file is no longer stored");
  let files: Map<string, Uint8Array>;
  let ids: number[];
  try {
    files = readArchive(new Uint8Array(await object.arrayBuffer()));
    ids = ndjson(files, "tree/groups/_all.ndjson").map(int).filter((id): id is number => id !== null);
  } catch (error) {
    if (error instanceof ArchiveError || error instanceof SyntaxError) return fail(error.message);
    throw error;
  }
  if (ids.length === 0) return fail("Invalid file: tree/groups/_all.ndjson lists no group");
  const attrsOf = (id: number): Rec => {
    const bytes = files.get(`tree/groups/${id}.json`);
    return (bytes ? rec(JSON.parse(strFromU8(bytes))) : null) ?? {};
  };
  // The imported group keeps the name and path it was created with; its description is the archive's.
  const groups = new Map<number, Namespace>([[ids[0], root]]);
  const rootDescription = str(attrsOf(ids[0]).description);
  if (rootDescription) await q.setDescription(db, root.id, rootDescription);
  for (const id of ids.slice(1)) {
    const attrs = attrsOf(id);
    const parent = groups.get(int(attrs.parent_id) ?? -1);
    if (!parent) continue;
    const made = await createSubgroup(db, importer, parent, attrs);
    if (made) groups.set(id, made);
  }
  const userOfEmail = await usersOfEmails(db, files, [...groups.keys()]);
  for (const [oldId, group] of groups) {
    const relations = relationsOf(files, oldId, importer.id, userOfEmail);
    await db.transaction((tx) => q.insertGroupRelations(tx, group.id, relations));
  }
  await endGroupTransferJob(db, job.id, {});
  return "done";
}
