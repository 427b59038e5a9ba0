export { jwtRoutes } from "./jwt";
export { distributionRoutes } from "./distribution";
export { registryRepositoriesRoutes } from "./repositories";
