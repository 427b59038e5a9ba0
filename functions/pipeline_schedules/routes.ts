import * as z from "zod";
import { allowed, authorize, type ProjectWithAccess } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { forbidden, notFound, validation } from "../kernel/errors";
import { findProject, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { variableErrors } from "../shared/ci/variable_rules";
import { PipelineSchedule, pipelineSchedule, PipelineScheduleDetails, pipelineScheduleDetails, PipelineScheduleVariable, scheduleVariable } from "../entities/pipeline_schedules";
import { StatusMessage } from "../entities/status_message";
import * as q from "./queries";
import { nextRunAt, runSchedule, scheduleErrors } from "./services";

/**
 * Pipeline schedules (lib/api/ci/pipeline_schedules.rb; app/policies/ci/pipeline_schedule_policy.rb):
 * reporters read, developers create and play, the schedule's owner (a developer) or a maintainer
 * changes it, maintainers take ownership. Due schedules run from the `*\/5` cron trigger.
 */
export const pipelineSchedulesRoutes = router();

const ListSchedules = pageParams.extend({ scope: p.oneOf("active", "inactive").optional() });
const CreateSchedule = z.object({ description: p.string(), ref: p.string(), cron: p.string(), cron_timezone: p.string().optional(), active: p.bool().optional() });
const UpdateSchedule = z.object({ description: p.string().optional(), ref: p.string().optional(), cron: p.string().optional(), cron_timezone: p.string().optional(), active: p.bool().optional() });
const CreateVariable = z.object({ key: p.string(), value: p.string(), variable_type: p.oneOf("env_var", "file").optional() });
const UpdateVariable = z.object({ value: p.string().optional(), variable_type: p.oneOf("env_var", "file").optional() });

async function loadSchedule(c: Ctx, project: ProjectWithAccess) {
  const raw = c.req.param("pipeline_schedule_id") ?? "";
  const row = /^\d+$/.test(raw) ? await q.findSchedule(c.var.db(), project.id, Number(raw)) : null;
  if (!row) throw notFound("Pipeline Schedule");
  return row;
}

const ownsSchedule = (c: Ctx, schedule: q.ScheduleRow) => schedule.ownerId !== null && schedule.ownerId === c.var.actor?.user.id;

/** `admin_pipeline_schedule`: maintainers, or the schedule's owner while a developer. */
function authorizeAdmin(c: Ctx, project: ProjectWithAccess, schedule: q.ScheduleRow) {
  const actor = c.var.actor;
  if (!(allowed(actor, "admin_build", project) || (ownsSchedule(c, schedule) && allowed(actor, "update_build", project)))) throw forbidden();
}

async function presentDetails(c: Ctx, project: ProjectWithAccess, id: number, status: 200 | 201 = 200) {
  const row = (await q.findSchedule(c.var.db(), project.id, id))!;
  const details = await q.scheduleDetails(c.var.db(), id);
  return present(c, { ...row, ...details }, pipelineScheduleDetails, { projectPath: project.fullPath }, status);
}

/** GET /projects/:id/pipeline_schedules (`scope`: active, inactive) */
pipelineSchedulesRoutes.get("/projects/:id/pipeline_schedules", { params: ListSchedules, response: [PipelineSchedule] }, async (c) => {
  const params = await readParams(c, ListSchedules);
  const project = await authorizedProject(c, "read_pipeline");
  const page = pageOf(params);
  const list = await q.listSchedules(c.var.db(), project.id, params.scope, page);
  paginate(c, page, list.total);
  return present(c, list.rows, pipelineSchedule);
});

/** GET /projects/:id/pipeline_schedules/:pipeline_schedule_id */
pipelineSchedulesRoutes.get("/projects/:id/pipeline_schedules/:pipeline_schedule_id", { response: PipelineScheduleDetails }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  const schedule = await loadSchedule(c, project);
  return presentDetails(c, project, schedule.id);
});

/** POST /projects/:id/pipeline_schedules: the caller owns it; `next_run_at` from the cron line. */
pipelineSchedulesRoutes.post("/projects/:id/pipeline_schedules", { params: CreateSchedule, response: PipelineScheduleDetails }, async (c) => {
  const params = await readParams(c, CreateSchedule);
  const project = await authorizedProject(c, "create_pipeline");
  const values = { description: params.description, ref: params.ref, cron: params.cron, cronTimezone: params.cron_timezone ?? "UTC", active: params.active ?? true };
  const errors = scheduleErrors(values);
  if (Object.keys(errors).length) throw validation(errors);
  const id = await q.insertSchedule(c.var.db(), project.id, c.var.actor!.user.id, { ...values, nextRunAt: nextRunAt(values.cron, values.cronTimezone) });
  return presentDetails(c, project, id, 201);
});

/** PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id: the owner (or an admin) only. */
pipelineSchedulesRoutes.put("/projects/:id/pipeline_schedules/:pipeline_schedule_id", { params: UpdateSchedule, response: PipelineScheduleDetails }, async (c) => {
  const params = await readParams(c, UpdateSchedule);
  const project = await authorizedProject(c, "read_pipeline");
  const schedule = await loadSchedule(c, project);
  if (!(c.var.actor?.isAdmin || (ownsSchedule(c, schedule) && allowed(c.var.actor, "update_build", project)))) throw forbidden();
  const values = {
    description: params.description ?? schedule.description ?? "",
    ref: params.ref ?? schedule.ref ?? "",
    cron: params.cron ?? schedule.cron,
    cronTimezone: params.cron_timezone ?? schedule.cronTimezone,
    active: params.active ?? schedule.active,
  };
  const errors = scheduleErrors(values);
  if (Object.keys(errors).length) throw validation(errors);
  await q.updateSchedule(c.var.db(), schedule.id, { ...values, nextRunAt: nextRunAt(values.cron, values.cronTimezone) });
  return presentDetails(c, project, schedule.id);
});

/** POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership: maintainers; 201. */
pipelineSchedulesRoutes.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership", { response: PipelineScheduleDetails }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  const schedule = await loadSchedule(c, project);
  authorize(c, "admin_build", project);
  await q.updateSchedule(c.var.db(), schedule.id, { ownerId: c.var.actor!.user.id });
  return presentDetails(c, project, schedule.id, 201);
});

/** DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id: 204 */
pipelineSchedulesRoutes.delete("/projects/:id/pipeline_schedules/:pipeline_schedule_id", async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  const schedule = await loadSchedule(c, project);
  authorizeAdmin(c, project, schedule);
  await q.deleteSchedule(c.var.db(), schedule.id);
  return c.body(null, 204);
});

/**
 * POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/play: 201 `{"message":"201 Created"}`.
 * Differs from GitLab: the pipeline is created before answering rather than by a background worker.
 */
pipelineSchedulesRoutes.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/play", { response: StatusMessage }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  const schedule = await loadSchedule(c, project);
  authorize(c, "create_pipeline", project);
  await runSchedule(c.env, c.var.db(), schedule, baseUrl(c));
  return c.json({ message: "201 Created" }, 201);
});

/** POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables */
pipelineSchedulesRoutes.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables", { params: CreateVariable, response: PipelineScheduleVariable }, async (c) => {
  const params = await readParams(c, CreateVariable);
  const project = await authorizedProject(c, "read_pipeline");
  const schedule = await loadSchedule(c, project);
  authorizeAdmin(c, project, schedule);
  const taken = (await q.findScheduleVariable(c.var.db(), schedule.id, params.key)) !== null;
  const errors = variableErrors({ key: params.key, value: params.value, masked: false }, { taken: false });
  if (taken) (errors.key ??= []).push("has already been taken");
  if (Object.keys(errors).length) throw validation(errors);
  const row = await q.insertScheduleVariable(c.var.db(), schedule.id, { key: params.key, value: params.value, variableType: params.variable_type ?? "env_var" });
  return present(c, row, scheduleVariable, undefined, 201);
});

async function loadVariable(c: Ctx, scheduleId: number) {
  const row = await q.findScheduleVariable(c.var.db(), scheduleId, c.req.param("key")!);
  if (!row) throw notFound("Pipeline Schedule Variable");
  return row;
}

/** PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key */
pipelineSchedulesRoutes.put("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key", { params: UpdateVariable, response: PipelineScheduleVariable }, async (c) => {
  const params = await readParams(c, UpdateVariable);
  const project = await authorizedProject(c, "read_pipeline");
  const schedule = await loadSchedule(c, project);
  authorizeAdmin(c, project, schedule);
  const row = await loadVariable(c, schedule.id);
  return present(c, await q.updateScheduleVariable(c.var.db(), row.id, { value: params.value, variableType: params.variable_type }), scheduleVariable);
});

/** DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key: 202 with the variable. */
pipelineSchedulesRoutes.delete("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key", { response: PipelineScheduleVariable, status: 202 }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_pipeline", project);
  const schedule = await loadSchedule(c, project);
  authorizeAdmin(c, project, schedule);
  const row = await loadVariable(c, schedule.id);
  await q.deleteScheduleVariable(c.var.db(), row.id);
  return present(c, row, scheduleVariable, undefined, 202);
});
