export { groupVariablesRoutes } from "./group";
export { instanceVariablesRoutes } from "./instance";
export { projectVariablesRoutes } from "./project";
