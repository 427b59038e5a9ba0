export { packagesRoutes } from "./packages";
export { genericPackagesRoutes } from "./generic";
export { npmPackagesRoutes } from "./npm";
export { pypiPackagesRoutes } from "./pypi";
