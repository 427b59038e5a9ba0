import * as z from "zod";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, validation } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { EVENTS, LEVELS, eventsFor } from "../entities/notification_levels";
import { globalNotificationSetting, GlobalNotificationSetting, notificationSetting, NotificationSettingEntity } from "../entities/notification_settings";
import * as q from "./queries";

/** lib/api/notification_settings.rb: every endpoint needs a signed-in user. */
export const notificationSettingsRoutes = router();

const eventParams = Object.fromEntries(EVENTS.map((e) => [e, p.bool().optional()]));
const UpdateGlobal = z.object({ level: p.string().optional(), notification_email: p.string().optional(), ...eventParams });
const UpdateSource = z.object({ level: p.string().optional(), ...eventParams });

/** The enum's ArgumentError, which the API renders as a 400 message. */
function checkLevel(level: string | undefined): void {
  if (level !== undefined && !(LEVELS as readonly string[]).includes(level)) throw apiError(`'${level}' is not a valid level`, 400);
}

function eventsOf(params: Record<string, unknown>, sourceType: "Project" | "Namespace" | null): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const e of eventsFor(sourceType)) if (typeof params[e] === "boolean") out[e] = params[e] as boolean;
  return out;
}

/** GET /notification_settings: the global setting (`participating` until changed) and the notification e-mail. */
notificationSettingsRoutes.get("/notification_settings", { response: GlobalNotificationSetting }, async (c) => {
  const actor = requireUser(c);
  const row = await q.findSetting(c.var.db(), actor.user.id, null);
  const view = row ?? { level: "participating", events: {}, sourceType: null, notificationEmail: null };
  return present(c, view, globalNotificationSetting, { email: actor.user.email });
});

/** PUT /notification_settings */
notificationSettingsRoutes.put("/notification_settings", { params: UpdateGlobal, response: GlobalNotificationSetting }, async (c) => {
  const actor = requireUser(c);
  const params = (await readParams(c, UpdateGlobal)) as Record<string, unknown> & { level?: string; notification_email?: string };
  checkLevel(params.level);
  // The notification e-mail must be one of the user's verified addresses: here, the primary e-mail.
  const email = params.notification_email;
  if (email !== undefined && email !== "" && email.toLowerCase() !== actor.user.email.toLowerCase())
    throw validation({ notification_email: ["is not an email you own"] });
  const row = await q.saveSetting(
    c.var.db(),
    actor.user.id,
    null,
    { level: params.level, events: eventsOf(params, null), notificationEmail: email === undefined ? undefined : email || null },
    "participating",
  );
  return present(c, row, globalNotificationSetting, { email: actor.user.email });
});

async function sourceOf(c: Ctx, kind: "groups" | "projects"): Promise<q.Source & {}> {
  const id = c.req.param("id")!;
  if (kind === "groups") return { type: "Namespace", id: (await findGroup(c, id)).id };
  return { type: "Project", id: (await findProject(c, id)).id };
}

for (const kind of ["groups", "projects"] as const) {
  /** GET /groups/:id/notification_settings, GET /projects/:id/notification_settings: `global` until changed. */
  notificationSettingsRoutes.get(`/${kind}/:id/notification_settings`, { response: NotificationSettingEntity }, async (c) => {
    const actor = requireUser(c);
    const source = await sourceOf(c, kind);
    const row = await q.findSetting(c.var.db(), actor.user.id, source);
    return present(c, row ?? { level: "global", events: {}, sourceType: source.type }, notificationSetting);
  });

  /** PUT /groups/:id/notification_settings, PUT /projects/:id/notification_settings */
  notificationSettingsRoutes.put(`/${kind}/:id/notification_settings`, { params: UpdateSource, response: NotificationSettingEntity }, async (c) => {
    const actor = requireUser(c);
    const params = (await readParams(c, UpdateSource)) as Record<string, unknown> & { level?: string };
    const source = await sourceOf(c, kind);
    checkLevel(params.level);
    const row = await q.saveSetting(c.var.db(), actor.user.id, source, { level: params.level, events: eventsOf(params, source.type) }, "global");
    return present(c, row, notificationSetting);
  });
}
