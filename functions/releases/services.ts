// Releases::CreateService, UpdateService and DestroyService (GitLab 15.4): the checks in GitLab's order,
// the tag made from `ref` when it does not exist, the release with its links, milestones and evidence in
// one transaction, and the release hook.
import type { User } from "../../db/schema";
import type { Database } from "../kernel/db";
import type { Bindings, HookRelease } from "../kernel/env";
import { apiError } from "../kernel/errors";
import { sha256Hex } from "../kernel/auth";
import { createTag, isValidBranchName, readRefsWithCommits, resolveCommitRow, tagRef, type Repo } from "../shared/git";
import type { Caller } from "../shared/protected_branches/access";
import { canCreateTag, listProtectedTags } from "../shared/protected_tags";
import { hookEvent } from "../shared/webhooks";
import { LINK_TYPES, type ReleaseRow } from "../entities/releases";
import * as q from "./queries";

export type LinkInput = { name: string; url: string; filepath?: string | null; direct_asset_path?: string | null; link_type?: string };

/** `Releases::Link::FILEPATH_REGEX`. */
const FILEPATH = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;

/**
 * Releases::Link's validations, as `{attribute: [messages]}`: a URL with scheme http, https or ftp
 * (AddressableUrlValidator), a filepath in GitLab's format, a known link type. Null when valid.
 */
export function linkErrors(link: Partial<LinkInput>): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  if (link.url !== undefined) {
    let scheme: string | null = null;
    try {
      scheme = new URL(link.url).protocol.replace(/:$/, "");
    } catch {
      errors.url = ["must be a valid URL"];
    }
    if (scheme !== null && !["http", "https", "ftp"].includes(scheme)) errors.url = ["is blocked: Only allowed schemes are http, https, ftp"];
  }
  if (link.name !== undefined && link.name.trim() === "") errors.name = ["can't be blank"];
  const filepath = link.direct_asset_path ?? link.filepath;
  if (filepath && !FILEPATH.test(filepath)) errors.filepath = ["is in an invalid format"];
  return Object.keys(errors).length ? errors : null;
}

/** A link's stored columns: `direct_asset_path` (15.x) wins over the deprecated `filepath`. */
export function newLink(link: LinkInput): q.NewLink {
  return { name: link.name, url: link.url, filepath: link.direct_asset_path ?? link.filepath ?? null, linkType: link.link_type ?? "other" };
}

/** A link type outside the enum is Rails' ArgumentError, which the API answers as 400. */
export function checkLinkType(type: string | undefined): void {
  if (type !== undefined && !(LINK_TYPES as readonly string[]).includes(type)) throw apiError(`'${type}' is not a valid link_type`, 400);
}

export const hookRelease = (row: ReleaseRow): HookRelease => ({
  id: row.id,
  tag: row.tag,
  name: row.name,
  description: row.description,
  sha: row.sha,
  createdAt: new Date(row.createdAt).toISOString(),
  releasedAt: new Date(row.releasedAt).toISOString(),
  links: row.links.map((l) => ({ id: l.id, name: l.name, url: l.url, linkType: l.linkType })),
});

type Project = { id: number; namespaceId: number; name: string; description: string | null; createdAt: Date };

/** Milestones by title; the titles not found are GitLab's 400. */
async function findMilestones(db: Database, project: Project, titles: string[] | undefined) {
  if (titles === undefined) return undefined;
  const found = await q.milestonesByTitle(db, project, titles);
  const missing = titles.filter((t) => !found.some((m) => m.title === t));
  if (missing.length) throw apiError(`Milestone(s) not found: ${missing.join(", ")}`, 400);
  return found;
}

/**
 * `Releases::CreateService#execute`. The evidence is `Evidences::EvidenceEntity` of the new release
 * (release, project and milestones), with its SHA-256 (`summary_sha`), collected in the same transaction.
 * Differs from GitLab: the evidence's milestones list no issues.
 */
export async function createRelease(
  db: Database,
  env: Bindings,
  baseUrl: string,
  repo: Repo,
  project: Project,
  actor: { user: User; caller: Caller },
  input: { tag: string; tagMessage?: string; name?: string; description?: string; ref?: string; releasedAt?: Date; milestones?: string[]; links: LinkInput[] },
): Promise<ReleaseRow> {
  if (!canCreateTag(await listProtectedTags(db, project.id), input.tag, actor.caller)) {
    throw apiError("You are not allowed to create this tag as it is protected.", 403);
  }
  if (await q.findRelease(db, project.id, input.tag)) throw apiError("Release already exists", 409);
  const milestones = (await findMilestones(db, project, input.milestones)) ?? [];
  for (const link of input.links) checkLinkType(link.link_type);
  const invalid = input.links.map(linkErrors).find((e) => e !== null);
  if (invalid) {
    const [attr, messages] = Object.entries(invalid)[0];
    throw apiError(`Validation failed: Links ${attr} ${messages[0]}`, 400);
  }
  const names = new Set(input.links.map((l) => l.name));
  const urls = new Set(input.links.map((l) => l.url));
  if (names.size < input.links.length || urls.size < input.links.length) throw apiError("Validation failed: Links have duplicate values", 400);

  const ref = tagRef(input.tag);
  let sha = (await readRefsWithCommits(db, repo, [ref])).get(ref)?.commit?.oid ?? null;
  if (!sha) {
    // `ensure_tag` → Tags::CreateService.
    if (!input.ref) throw apiError("Ref is not specified", 422);
    if (!isValidBranchName(input.tag)) throw apiError("Tag name invalid", 400);
    const target = await resolveCommitRow(db, repo, input.ref);
    if (!target) throw apiError(`Target ${input.ref} is invalid`, 400);
    const created = await createTag(db, repo, { name: input.tag, target: target.oid, message: input.tagMessage?.trim() ?? "", tagger: { name: actor.user.name, email: actor.user.email }, userId: actor.user.id });
    if (created.kind === "exists") throw apiError(`Tag ${input.tag} already exists`, 400);
    sha = target.oid;
  }
  const releasedAt = input.releasedAt ?? new Date();
  const name = input.name ?? input.tag;
  const made = await db.transaction(async (tx) => {
    const inserted = await q.insertRelease(tx, {
      projectId: project.id,
      tag: input.tag,
      name,
      description: input.description ?? null,
      authorId: actor.user.id,
      sha: sha!,
      releasedAt,
      links: input.links.map(newLink),
      milestoneIds: milestones.map((m) => m.id),
    });
    if (!inserted) return null;
    const summary = {
      release: {
        id: inserted.id,
        tag_name: input.tag,
        name,
        description: input.description ?? null,
        created_at: inserted.createdAt.toISOString(),
        project: { id: project.id, name: project.name, description: project.description, created_at: new Date(project.createdAt).toISOString() },
        milestones: milestones.map((m) => ({
          id: m.id,
          title: m.title,
          description: m.description,
          state: m.state,
          iid: m.iid,
          created_at: new Date(m.createdAt).toISOString(),
          due_date: m.dueDate,
          issues: [],
        })),
      },
    };
    await q.insertEvidence(tx, inserted.id, summary, await sha256Hex(JSON.stringify(summary)));
    return inserted;
  });
  // A concurrent create of the same release won the unique index.
  if (!made) throw apiError("Release already exists", 409);
  const row = (await q.findRelease(db, project.id, input.tag))!;
  await hookEvent(env, baseUrl, { kind: "release", projectId: project.id, action: "create", release: hookRelease(row) });
  return row;
}

/** `Releases::UpdateService#execute`: at least one field, milestones by title (`[]` removes them all). */
export async function updateRelease(
  db: Database,
  env: Bindings,
  baseUrl: string,
  project: Project,
  found: ReleaseRow,
  input: { name?: string; description?: string; releasedAt?: Date; milestones?: string[] },
): Promise<ReleaseRow> {
  if (input.name === undefined && input.description === undefined && input.releasedAt === undefined && input.milestones === undefined) {
    throw apiError("params is empty", 400);
  }
  const milestones = await findMilestones(db, project, input.milestones);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.releasedAt !== undefined ? { releasedAt: input.releasedAt } : {}),
  };
  await db.transaction((tx) => q.updateRelease(tx, found.id, changes, milestones?.map((m) => m.id)));
  const row = (await q.findRelease(db, project.id, found.tag))!;
  await hookEvent(env, baseUrl, { kind: "release", projectId: project.id, action: "update", release: hookRelease(row) });
  return row;
}

/** `Releases::DestroyService#execute`: the tag stays. */
export async function destroyRelease(db: Database, env: Bindings, baseUrl: string, project: Project, found: ReleaseRow): Promise<void> {
  if (!(await q.deleteRelease(db, project.id, found.id))) throw apiError("Release does not exist", 404);
  await hookEvent(env, baseUrl, { kind: "release", projectId: project.id, action: "delete", release: hookRelease(found) });
}
