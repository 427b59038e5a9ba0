import type { z } from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * `GET /projects/:id/jobs`, `GET /projects/:id/pipelines/:pipeline_id/bridges` (lib/api/ci/jobs.rb):
 * Ci::JobsFinder's params, which the list query reads as declared (`scope` is checked by the route).
 */
export const ListJobs = pageParams.extend({ scope: p.strings().optional().describe("The scope of builds to show") });

/** `GET /projects/:id/pipelines/:pipeline_id/jobs`: retried jobs only on request. */
export const ListPipelineJobs = ListJobs.extend({ include_retried: p.bool().optional().describe("Includes retried jobs") });

export type ListParams = Partial<z.output<typeof ListPipelineJobs>>;
