// The projects domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). A project import creates (or replaces) its project as POST /projects does.
export { createProject, replaceProject } from "./services";
// A project import sets the archive's topics through the one writer of a project's topics.
export { assignTopics } from "./queries";
// The search API (functions/search) finds projects as ProjectsFinder does (`search`, visibility, a group).
export { listProjects } from "./queries";
// The web front (functions/web) shows a project's languages as GET /projects/:id/languages computes them.
export { languageShares } from "./languages";
// GET /groups?statistics=true (functions/groups) sums its projects' statistics as GET /projects computes them.
export { namespaceStatistics } from "./statistics_queries";
