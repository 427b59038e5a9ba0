// The jobs domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The web front (functions/web/pipelines.tsx) shows a pipeline's jobs and a
// job's log with the API's own queries.
export { findJob, listJobs, readTrace } from "./queries";
export { ListPipelineJobs } from "./params";
// Deployments and environments embed a deployment's job (`deployable`) with the Job entity, preloaded as the jobs API does.
export { jobRowsByIds } from "./queries";
