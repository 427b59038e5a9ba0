import type { User } from "../../db/schema";
import { Access } from "../kernel/access";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { checkUnmodifiedSince, conflict, forbidden, isUniqueViolation, notFound, recordNotFound, validation } from "../kernel/errors";
import { toSentence } from "../kernel/present";
import type { MemberRow } from "../entities/members";
import * as q from "./queries";
import {
  canManageOwners,
  fullMessages,
  mayDestroy,
  mayUpdate,
  validateMember,
  type MemberSource,
} from "./rules";
import { pathRowId } from "../kernel/params";

/**
 * Members::CreateService, UpdateService and DestroyService (app/services/members/*). Each write is a
 * single statement, so no transaction is needed; the decisions before it are the rules of rules.ts.
 */

/** Ruby's `String#to_i` as ActiveRecord casts an id: leading digits, else no user. */
function leadingId(text: string): number | null {
  const match = /^\s*\+?(\d+)/.exec(text);
  if (!match) return null;
  return pathRowId(match[1]);
}

/** `POST …/members` with one user (API::Helpers::MembersHelpers#add_single_member_by_user_id). */
export async function addOneMember(
  db: Executor,
  source: MemberSource,
  scope: q.MemberScope,
  actor: Actor,
  input: { userId: string; accessLevel: number; expiresAt: string | null },
): Promise<MemberRow> {
  const id = leadingId(input.userId);
  const [invitee] = id === null ? [] : await q.loadInvitees(db, scope, [id], []);
  if (!invitee) throw notFound("User");
  if (invitee.existing) throw conflict("Member already exists");
  // Members::Projects::CreatorService: only those who manage owners create one (AccessDeniedError).
  if (input.accessLevel === Access.OWNER && !canManageOwners(actor, source)) throw forbidden();
  const errors = validateMember(source, {
    accessLevel: input.accessLevel,
    expiresAt: input.expiresAt,
    inherited: invitee.inherited,
    botElsewhere: invitee.user.userType === "project_bot" && invitee.hasMembership,
  });
  if (errors) throw validation(errors);
  // Two concurrent adds both pass the `existing` check; the unique index refuses the loser, who gets
  // the answer the check would have given.
  const member = await q
    .insertMember(db, scope, {
      userId: invitee.user.id,
      accessLevel: input.accessLevel,
      expiresAt: input.expiresAt,
      createdById: actor.user.id,
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, "index_members_on_source_and_user_id")) throw conflict("Member already exists");
      throw error;
    });
  return { member, user: invitee.user, createdBy: actor.user, accessLevel: member.accessLevel };
}

const INVITE_LIMIT = 100;
const EMAIL = /^[^@\s]+@[^@\s]+$/; // Devise.email_regexp

/** Ruby's `String#split(',')`: trailing empty fields are dropped. */
function rubySplit(text: string): string[] {
  const parts = text.split(",");
  while (parts.length && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/**
 * `POST …/members` with comma-separated ids (Members::CreateService): unknown ids are skipped, existing
 * members take the new level, each invalid member adds `username: messages`; the valid ones are saved
 * even when others fail. Returns the error sentence, or null on success.
 */
export async function addManyMembers(
  db: Executor,
  source: MemberSource,
  scope: q.MemberScope,
  actor: Actor,
  input: { userIds: string; accessLevel: number; expiresAt: string | null },
): Promise<string | null> {
  const items = [...new Set(rubySplit(input.userIds))];
  if (items.length === 0) return "No users specified.";
  if (items.length > INVITE_LIMIT) return `Too many users specified (limit is ${INVITE_LIMIT})`;
  if (input.accessLevel === Access.OWNER && !canManageOwners(actor, source)) throw forbidden();

  const ids = items.filter((item) => pathRowId(item) !== null).map(Number);
  const emails = items.filter((item) => !/^\d+$/.test(item) && EMAIL.test(item));
  const invitees = ids.length || emails.length ? await q.loadInvitees(db, scope, ids, emails) : [];
  const known = new Set(invitees.map((i) => i.user.email.toLowerCase()));
  // Differs from GitLab: an e-mail without a user would become an invitation; invitations are not
  // built, so such an entry is reported instead of silently dropped.
  const errors = emails
    .filter((email) => !known.has(email.toLowerCase()))
    .map((email) => `${email}: Invite email is not a registered user`);

  const saved: q.NewMember[] = [];
  for (const invitee of invitees.sort((a, b) => a.user.id - b.user.id)) {
    const message = inviteeError(actor, source, invitee, input);
    if (message) errors.push(`${invitee.user.username}: ${message}`);
    else saved.push({ userId: invitee.user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt, createdById: actor.user.id });
  }
  await q.upsertMembers(db, scope, saved);
  return errors.length ? toSentence(errors) : null;
}

function inviteeError(
  actor: Actor,
  source: MemberSource,
  invitee: q.Invitee,
  input: { accessLevel: number; expiresAt: string | null },
): string | null {
  const user: User = invitee.user;
  if (
    invitee.existing &&
    !mayUpdate(actor, source, { userId: user.id, accessLevel: invitee.existing.accessLevel, userType: user.userType }, input.accessLevel, invitee.owner)
  )
    return "not authorized to update member";
  const errors = validateMember(source, {
    accessLevel: input.accessLevel,
    expiresAt: input.expiresAt,
    inherited: invitee.inherited,
    botElsewhere: user.userType === "project_bot" && invitee.hasMembership && !invitee.existing,
  });
  return errors ? fullMessages(errors) : null;
}

/** `PUT …/members/:user_id` (Members::UpdateService). `expiresAt` undefined keeps the stored date. */
export async function updateMember(
  db: Executor,
  source: MemberSource,
  scope: q.MemberScope,
  actor: Actor,
  userId: number,
  input: { accessLevel: number; expiresAt?: string | null },
): Promise<MemberRow> {
  const loaded = await q.loadDirectMember(db, scope, userId);
  if (!loaded) throw recordNotFound();
  const target = { userId, accessLevel: loaded.member.accessLevel, userType: loaded.user.userType };
  if (!mayUpdate(actor, source, target, input.accessLevel, loaded.owner)) throw forbidden();
  const expiresAt = input.expiresAt === undefined ? loaded.member.expiresAt : input.expiresAt;
  const errors = validateMember(source, { accessLevel: input.accessLevel, expiresAt, inherited: loaded.inherited, botElsewhere: false });
  if (errors) throw validation(errors);
  const member = await q.updateMember(db, loaded.member.id, {
    accessLevel: input.accessLevel,
    ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
  });
  return { member, user: loaded.user, createdBy: loaded.createdBy, accessLevel: member.accessLevel };
}

/** `DELETE …/members/:user_id` (Members::DestroyService). */
export async function removeMember(
  db: Executor,
  source: MemberSource,
  scope: q.MemberScope,
  actor: Actor,
  input: { userId: number; canAdminMembers: boolean; skipSubresources: boolean; ifUnmodifiedSince?: string },
): Promise<void> {
  const loaded = await q.loadDirectMember(db, scope, input.userId);
  if (!loaded) throw recordNotFound();
  checkUnmodifiedSince(input.ifUnmodifiedSince, loaded.member.updatedAt);
  const target = { userId: input.userId, accessLevel: loaded.member.accessLevel, userType: loaded.user.userType };
  if (!mayDestroy(actor, source, input.canAdminMembers, target, loaded.owner)) throw forbidden();
  await q.deleteMember(db, scope, loaded.member, input.skipSubresources);
}
