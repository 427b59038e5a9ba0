import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import { notFound } from "../kernel/errors";
import { findIssue } from "../shared/issuables/find";
import { findProject } from "../kernel/lookup";
import { p, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { userAgentDetail, UserAgentDetail } from "../entities/user_agent_details";
import { findUserAgentDetail } from "./queries";

/** The user agent and IP address an issue was created from, for administrators (spam handling). */
export const userAgentDetailsRoutes = router();

const IssueIid = z.object({ issue_iid: p.id() });

/** GET /projects/:id/issues/:issue_iid/user_agent_detail (lib/api/issues.rb) */
userAgentDetailsRoutes.get("/projects/:id/issues/:issue_iid/user_agent_detail", { params: IssueIid, response: UserAgentDetail }, async (c) => {
  await readParamsWithPath(c, IssueIid);
  // `authenticated_as_admin!` runs before the project and the issue are looked up.
  requireAdmin(c);
  const project = await findProject(c, c.req.param("id"));
  const issue = await findIssue(c, project, c.req.param("issue_iid"));
  const detail = await findUserAgentDetail(c.var.db(), "Issue", issue.id);
  if (!detail) throw notFound("UserAgentDetail");
  return present(c, detail, userAgentDetail);
});
