// The pipelines domain's public face: the one file another domain may import from it (the layering
// rule, .dependency-cruiser.cjs). The web front (functions/web/pipelines.tsx) lists and shows
// pipelines with the API's own queries.
export { findPipeline, listPipelines } from "./queries";
export { ListPipelines } from "./params";
