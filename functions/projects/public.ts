// The projects domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). A project import creates (or replaces) its project as POST /projects does.
export { createProject, replaceProject } from "./services";
