import { router } from "../../kernel/router";
import { compareRoutes } from "./compare";
import { fileRoutes } from "./files";

/**
 * The repository API (lib/api/repositories.rb, lib/api/files.rb), by sub-resource: files and tree,
 * compare and merge base.
 */
export const repositoryRoutes = router();
repositoryRoutes.route("/", fileRoutes);
repositoryRoutes.route("/", compareRoutes);
