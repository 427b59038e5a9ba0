import { mounted } from "../../kernel/router";
import { listRoutes } from "./list";
import { projectRoutes } from "./project";
import { forkRoutes } from "./forks";
import { shareRoutes } from "./share";
import { teamRoutes } from "./team";
import { repositoryInfoRoutes } from "./repository_info";
import { starsRoutes } from "./stars";

/** The projects resource (lib/api/projects.rb) and the group project lists of lib/api/groups.rb. */
export const projectsRoutes = mounted(listRoutes, projectRoutes, shareRoutes, forkRoutes, teamRoutes, repositoryInfoRoutes, starsRoutes);
