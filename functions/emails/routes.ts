import * as z from "zod";
import type { User } from "./queries";
import { requireAdmin, requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { checkUnmodifiedSince, notFound, validation } from "../kernel/errors";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { INT32, isRowId, p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { email as emailEntity, EmailEntity } from "../entities/emails";
import * as q from "./queries";

/**
 * E-mail addresses of users (lib/api/users.rb, app/services/emails/*, app/models/email.rb): a user's
 * own under /user/emails, any user's for administrators under /users/:id/emails. GETs are open to
 * `read_user` tokens.
 *
 * Deliberate difference from GitLab: the primary e-mail is not a row of `emails` (GitLab 15 keeps a
 * confirmed copy there), so lists show secondary addresses only; no confirmation mail is sent, so an
 * address added by its owner stays unconfirmed (`confirmed_at: null`) unless an administrator adds it
 * with `skip_confirmation`.
 */
export const emailsRoutes = router({ readUserScope: true });

const EmailId = z.object({ email_id: p.int() });
const AddEmail = z.object({ email: p.string() });
const AdminAddEmail = z.object({ email: p.string(), skip_confirmation: p.bool().optional() });

/**
 * Email's validations: `presence`, `validate_email_format` (the valid_email gem: one `@`, no spaces,
 * a dotted domain), then uniqueness against `emails` and users' primary addresses (in the insert).
 */
function formatErrors(address: string): string[] {
  const errors: string[] = [];
  if (address === "") errors.push("can't be blank");
  if (!/^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/.test(address)) errors.push("is invalid");
  return errors;
}

async function addEmail(c: Ctx, user: User, raw: string, confirmed: boolean) {
  // `Email#email=`: stored stripped and lower-case.
  const address = raw.trim().toLowerCase();
  const errors = formatErrors(address);
  if (errors.length > 0) throw validation({ email: errors });
  const row = await q.insertEmail(c.var.db(), user.id, address, confirmed);
  if (!row) throw validation({ email: ["has already been taken"] });
  return present(c, row, emailEntity, undefined, 201);
}

async function readEmailId(c: Ctx): Promise<number | null> {
  const { email_id } = await readParamsWithPath(c, EmailId);
  return isRowId(email_id) ? email_id : null;
}

/** `User.find_by(id:)` of the `:id` path parameter (digits only). */
async function findTarget(c: Ctx): Promise<User> {
  const id = Number(c.req.param("id"));
  const user = id <= INT32.max ? await q.findUser(c.var.db(), id) : null;
  if (!user) throw notFound("User");
  return user;
}

async function deleteOne(c: Ctx, user: User) {
  const emailId = await readEmailId(c);
  const row = emailId === null ? null : await q.findEmail(c.var.db(), user.id, emailId);
  if (!row) throw notFound("Email");
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), row.updatedAt);
  await q.deleteEmail(c.var.db(), row);
  return c.body(null, 204);
}

// ---------------------------------------------------------------------------------------------
// The caller's addresses: /user/emails

/** GET /user/emails */
emailsRoutes.get("/user/emails", { params: pageParams, response: [EmailEntity] }, async (c) => {
  const actor = requireUser(c);
  const page = pageOf(await readParams(c, pageParams));
  const { rows, total } = await q.listEmails(c.var.db(), actor.user.id, page);
  paginate(c, page, total);
  return present(c, rows, emailEntity);
});

/** GET /user/emails/:email_id */
emailsRoutes.get("/user/emails/:email_id", { params: EmailId, response: EmailEntity }, async (c) => {
  const actor = requireUser(c);
  const emailId = await readEmailId(c);
  const row = emailId === null ? null : await q.findEmail(c.var.db(), actor.user.id, emailId);
  if (!row) throw notFound("Email");
  return present(c, row, emailEntity);
});

/** POST /user/emails: 201, unconfirmed; 400 with the model's errors. */
emailsRoutes.post("/user/emails", { params: AddEmail, response: EmailEntity }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, AddEmail);
  return addEmail(c, actor.user, params.email, false);
});

/** DELETE /user/emails/:email_id: 204. */
emailsRoutes.delete("/user/emails/:email_id", { params: EmailId }, async (c) => {
  const actor = requireUser(c);
  return deleteOne(c, actor.user);
});

// ---------------------------------------------------------------------------------------------
// Another user's addresses (administrators): /users/:id/emails

/** GET /users/:id/emails */
emailsRoutes.get("/users/:id{[0-9]+}/emails", { params: pageParams, response: [EmailEntity] }, async (c) => {
  const page = pageOf(await readParams(c, pageParams));
  requireAdmin(c);
  const user = await findTarget(c);
  const { rows, total } = await q.listEmails(c.var.db(), user.id, page);
  paginate(c, page, total);
  return present(c, rows, emailEntity);
});

/** POST /users/:id/emails: `skip_confirmation` confirms the address at once (an administrator adds it). */
emailsRoutes.post("/users/:id{[0-9]+}/emails", { params: AdminAddEmail, response: EmailEntity }, async (c) => {
  const params = await readParams(c, AdminAddEmail);
  requireAdmin(c);
  const user = await findTarget(c);
  return addEmail(c, user, params.email, !!params.skip_confirmation);
});

/** DELETE /users/:id/emails/:email_id: 204. */
emailsRoutes.delete("/users/:id{[0-9]+}/emails/:email_id", { params: EmailId }, async (c) => {
  await readEmailId(c);
  requireAdmin(c);
  const user = await findTarget(c);
  return deleteOne(c, user);
});
