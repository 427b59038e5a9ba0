import { groupParent, milestoneRoutes } from "./owned";

/**
 * Group milestones (lib/api/group_milestones.rb): the endpoints it shares with project milestones
 * (`owned.ts`). A group milestone's issues and merge requests are those of the group's own projects.
 */
export const groupMilestoneRoutes = milestoneRoutes(groupParent);
