import { router } from "../../kernel/router";
import { mergeRequestApprovalRoutes } from "./merge_requests";
import { approvalRuleRoutes } from "./rules";
import { approvalSettingsRoutes } from "./settings";

/**
 * Merge request approvals (ee/lib/api/project_approvals.rb, project_approval_rules.rb,
 * merge_request_approvals.rb; doc/api/merge_request_approvals.md, GitLab 15.4).
 */
export const approvalsRoutes = router();
approvalsRoutes.route("/", approvalSettingsRoutes);
approvalsRoutes.route("/", approvalRuleRoutes);
approvalsRoutes.route("/", mergeRequestApprovalRoutes);
