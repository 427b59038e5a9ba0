import * as z from "zod";
import { requireUser } from "../kernel/auth";
import { acceptedBody, apiError, forbidden } from "../kernel/errors";
import { findGroup } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { router } from "../kernel/router";
import { canCreateGroup, canCreateSubgroup, createGroup, creationFacts, hasErrors, rubyHash, validateGroup } from "../groups/public";
import * as q from "./queries";
import { groupImportKey } from "./services";

/**
 * Group import (lib/api/group_import.rb): `POST /groups/import` creates the group as POST /groups does
 * and schedules the archive's import in the `edgeforge-exports` queue (the work: services.ts). GitLab
 * 15.4 has no import status endpoint. `POST /groups/import/authorize` (Workhorse) is not built.
 */
export const groupImportRoutes = router();

const StartImport = z.object({
  path: p.string(),
  name: p.string(),
  file: p.file(),
  parent_id: p.int().optional(),
});

/** POST /groups/import: 202 `{"message":"202 Accepted"}`; the import runs in the queue consumer. */
groupImportRoutes.post("/groups/import", { params: StartImport }, async (c) => {
  const params = await readParams(c, StartImport);
  const actor = requireUser(c);
  const parent = params.parent_id !== undefined ? await findGroup(c, String(params.parent_id)) : null;
  // `authorize_create_group!`: create_subgroup on the parent, else create_group.
  if (parent ? !canCreateSubgroup(actor, parent) : !canCreateGroup(actor)) throw forbidden();
  // `validate_file!` (ImportExportUploader::EXTENSION_ALLOWLIST: `File.extname` is `.gz`).
  if (!/\.gz$/.test(params.file.name)) throw apiError("The file is invalid", 400);
  const db = c.var.db();
  const fullPath = parent ? `${parent.fullPath}/${params.path}` : params.path;
  const facts = await creationFacts(db, fullPath);
  // `closest_allowed_visibility_level`: the parent's, else private.
  // Differs from GitLab: restricted visibility levels do not lower it (Edgeforge applies them at POST /groups only).
  const level = parent?.visibilityLevel ?? 0;
  const errors = validateGroup({
    name: params.name, nameChanged: true, path: params.path, pathChanged: true, description: "", ancestorCount: parent?.traversalIds.length ?? 0,
    visibilityLevel: level, parentVisibilityLevel: parent?.visibilityLevel ?? null, maxChildVisibility: null, maxProjectVisibility: null, twoFactorGracePeriod: 0, pathTaken: facts.taken,
  });
  const failed = (e: Record<string, string[]>) => apiError(`Failed to save group ${rubyHash(e)}`, 400);
  if (hasErrors(errors)) throw failed(errors);
  const created = await createGroup(
    db,
    facts.nextId,
    parent?.traversalIds ?? [],
    {
      name: params.name, path: params.path, fullPath, fullName: parent ? `${parent.fullName} / ${params.name}` : params.name,
      parentId: parent?.id ?? null, visibilityLevel: level, shareWithGroupLock: parent?.shareWithGroupLock ?? false,
    },
    actor.user.id,
  );
  if (!created) throw failed({ path: ["has already been taken"] });
  const key = groupImportKey(created.id, crypto.randomUUID());
  await c.env.BLOBS.put(key, await params.file.arrayBuffer(), { httpMetadata: { contentType: "application/gzip" } });
  const job = await q.createImportJob(db, { groupId: created.id, userId: actor.user.id, r2Key: key, correlationId: c.var.requestId });
  await c.env.EXPORTS_QUEUE.send({ kind: "group_import", id: job.id });
  return c.json(acceptedBody, 202);
});
