import type { CiPipeline, CiPipelineSchedule, CiPipelineScheduleVariable, User } from "../../db/schema";
import { isoTime, type PresentContext } from "../kernel/present";
import { pipelineBasic } from "./pipelines";
import { userBasic } from "./users";

/** A pipeline schedule with its owner (null once the owner is gone). */
export type ScheduleRow = CiPipelineSchedule & { owner: User | null };

/** API::Entities::Ci::PipelineSchedule (lib/api/entities/ci/pipeline_schedule.rb). */
export function pipelineSchedule(row: ScheduleRow, ctx: PresentContext) {
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
export function pipelineScheduleDetails(row: ScheduleDetailsRow, ctx: PresentContext & { projectPath: string }) {
  return {
    ...pipelineSchedule(row, ctx),
    last_pipeline: row.lastPipeline ? pipelineBasic(row.lastPipeline, ctx) : null,
    variables: row.variables.map(scheduleVariable),
  };
}

/** API::Entities::Ci::Variable for a schedule variable. */
export function scheduleVariable(row: CiPipelineScheduleVariable) {
  return { variable_type: row.variableType, key: row.key, value: row.value };
}
