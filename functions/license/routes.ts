import * as z from "zod";
import { requireAdmin, requireUser } from "../kernel/auth";
import { apiError, recordNotFound } from "../kernel/errors";
import { p, readParams, validateParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { gitlabLicense, GitlabLicense, gitlabLicenseWithActiveUsers, GitlabLicenseWithActiveUsers } from "../entities/license";
import { verifyLicense } from "./format";
import * as q from "./queries";

/** ee/lib/api/license.rb: administrators only. */
export const licenseRoutes = router();

/** GET /license: the current license with the live billable count (null when there is none). */
licenseRoutes.get("/license", { response: GitlabLicenseWithActiveUsers.nullable() }, async (c) => {
  requireAdmin(c);
  const [current] = await q.listLicenses(c.var.db(), { currentOnly: true });
  if (!current) return c.json(null);
  return present(c, current, gitlabLicenseWithActiveUsers);
});

/** GET /licenses: every license, newest first. */
licenseRoutes.get("/licenses", { response: [GitlabLicense], paginated: false }, async (c) => {
  requireAdmin(c);
  const rows = await q.listLicenses(c.var.db());
  return present(c, rows, gitlabLicense);
});

/** POST /license: a license signed with the key of `LICENSE_PUBLIC_KEY`; 201, or 400 with GitLab's message. */
const AddLicense = z.object({ license: p.string() });
licenseRoutes.post("/license", { params: AddLicense, response: GitlabLicense }, async (c) => {
  requireUser(c);
  const { license } = await readParams(c, AddLicense);
  requireAdmin(c);
  const payload = await verifyLicense(license.trim(), c.env.LICENSE_PUBLIC_KEY);
  if (!payload) throw apiError("The license key is invalid. Make sure it is exactly as you received it from GitLab Inc.", 400);
  if (payload.expires_at && payload.expires_at < new Date().toISOString().slice(0, 10))
    throw apiError("This license has already expired.", 400);
  const db = c.var.db();
  const created = await q.insertLicense(db, {
    data: license.trim(),
    plan: payload.plan,
    licensee: payload.licensee,
    startsAt: payload.starts_at,
    expiresAt: payload.expires_at,
    userLimit: payload.user_limit,
    addOns: payload.add_ons,
  });
  const [row] = await q.listLicenses(db, { id: created.id });
  return present(c, row, gitlabLicense, undefined, 201);
});

/** DELETE /license/:id: 204, 404 when there is no such license. */
licenseRoutes.delete("/license/:id", async (c) => {
  requireUser(c);
  const { id } = validateParams({ id: c.req.param("id") }, z.object({ id: p.int() }));
  requireAdmin(c);
  if (id > 2147483647 || !(await q.deleteLicense(c.var.db(), id))) throw recordNotFound();
  return c.body(null, 204);
});
