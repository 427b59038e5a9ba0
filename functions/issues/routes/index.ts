import { mounted } from "../../kernel/router";
import { eventRoutes } from "./events";
import { issueRoutes } from "./issue";
import { listRoutes } from "./list";
import { moveRoutes } from "./move";
import { participantRoutes } from "./participants";
import { statisticsRoutes } from "./statistics";

/**
 * Issues (lib/api/issues.rb) and their resource events. Other issue sub-resources live in their own
 * domains: notes, award emoji, links, to-dos, time tracking, user agent detail,
 * metric images, related merge requests.
 * Subscribe/unsubscribe live in functions/subscriptions.
 */
export const issuesRoutes = mounted(listRoutes, issueRoutes, eventRoutes, participantRoutes, statisticsRoutes, moveRoutes);
