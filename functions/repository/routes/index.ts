import { router } from "../../kernel/router";
import { archiveRoutes } from "./archive";
import { blobRoutes } from "./blobs";
import { compareRoutes } from "./compare";
import { fileRoutes } from "./files";

/**
 * The repository API (lib/api/repositories.rb, lib/api/files.rb), by sub-resource: files and tree,
 * compare and merge base, blobs and contributors, archives.
 */
export const repositoryRoutes = router();
repositoryRoutes.route("/", fileRoutes);
repositoryRoutes.route("/", compareRoutes);
repositoryRoutes.route("/", blobRoutes);
repositoryRoutes.route("/", archiveRoutes);
