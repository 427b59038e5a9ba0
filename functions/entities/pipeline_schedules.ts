import * as z from "zod";
import type { CiPipeline, CiPipelineSchedule, CiPipelineScheduleVariable, User } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { PipelineBasic, pipelineBasic } from "./pipelines";
import { UserBasic, userBasic } from "./users";

/** A pipeline schedule with its owner (null once the owner is gone). */
export type ScheduleRow = CiPipelineSchedule & { owner: User | null };

/** API::Entities::Ci::PipelineSchedule (lib/api/entities/ci/pipeline_schedule.rb). */
export const PipelineSchedule = z
  .object({
    id: z.int(),
    description: z.string().nullable(),
    ref: z.string().nullable(),
    cron: z.string().nullable(),
    cron_timezone: z.string().nullable(),
    next_run_at: z.string().nullable(),
    active: z.boolean().nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    owner: UserBasic.nullable(),
  })
  .meta({ id: "PipelineSchedule" });
export function pipelineSchedule(row: ScheduleRow, ctx: PresentContext): z.output<typeof PipelineSchedule> {
  return {
    id: row.id,
    description: row.description,
    ref: row.ref,
    cron: row.cron,
    cron_timezone: row.cronTimezone,
    next_run_at: isoTime(row.nextRunAt),
    active: row.active,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    owner: row.owner ? userBasic(row.owner, ctx) : null,
  };
}

export type ScheduleDetailsRow = ScheduleRow & { variables: CiPipelineScheduleVariable[]; lastPipeline: CiPipeline | null };

/** API::Entities::Ci::PipelineScheduleDetails: adds `last_pipeline` and `variables`. */
export const PipelineScheduleVariable = z.object({ variable_type: z.string(), key: z.string(), value: z.string().nullable() }).meta({ id: "PipelineScheduleVariable" });
export const PipelineScheduleDetails = PipelineSchedule.extend({ last_pipeline: PipelineBasic.nullable(), variables: z.array(PipelineScheduleVariable) }).meta({
  id: "PipelineScheduleDetails",
});
export function pipelineScheduleDetails(row: ScheduleDetailsRow, ctx: PresentContext & { projectPath: string }): z.output<typeof PipelineScheduleDetails> {
  return {
    ...pipelineSchedule(row, ctx),
    last_pipeline: row.lastPipeline ? pipelineBasic(row.lastPipeline, ctx) : null,
    variables: row.variables.map(scheduleVariable),
  };
}

/** API::Entities::Ci::Variable for a schedule variable. */
export function scheduleVariable(row: CiPipelineScheduleVariable): z.output<typeof PipelineScheduleVariable> {
  return { variable_type: row.variableType, key: row.key, value: row.value };
}
