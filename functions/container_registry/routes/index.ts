export { jwtRoutes } from "./jwt";
export { distributionRoutes } from "./distribution";
