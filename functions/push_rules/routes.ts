import * as z from "zod";
import { authorize, authorizeGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, notFound, validation } from "../kernel/errors";
import { findGroup, findProject } from "../kernel/lookup";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { GroupPushRule, ProjectPushRule, groupPushRule, projectPushRule } from "../entities/push_rules";
import { regexError } from "../shared/push_rules";
import * as q from "./queries";

/**
 * Push rules of projects and groups (ee/lib/api/project_push_rule.rb, group_push_rule.rb, 15.4):
 * project maintainers (`admin_project`) and group maintainers (`change_push_rules`). They are enforced
 * on `git push` by shared/push_rules through shared/git_http/receive_pack.
 */
export const pushRulesRoutes = router();

const Fields = {
  deny_delete_tag: p.bool().optional(),
  member_check: p.bool().optional(),
  prevent_secrets: p.bool().optional(),
  commit_message_regex: p.string().optional(),
  commit_message_negative_regex: p.string().optional(),
  branch_name_regex: p.string().optional(),
  author_email_regex: p.string().optional(),
  file_name_regex: p.string().optional(),
  max_file_size: p.intIn({ min: 0 }).optional(),
  commit_committer_check: p.bool().optional(),
  reject_unsigned_commits: p.bool().optional(),
};
const RuleParams = z.object(Fields);
/** `at_least_one_of` over the rule's attributes, in the order GitLab declares them. */
const AT_LEAST_ONE = [
  { atLeastOneOf: ["deny_delete_tag", "member_check", "prevent_secrets", "commit_message_regex", "commit_message_negative_regex", "branch_name_regex", "author_email_regex", "file_name_regex", "max_file_size", "commit_committer_check", "reject_unsigned_commits"] },
];

/** The declared attributes as columns; the regexes are validated (`untrusted_regexp: true`). */
function ruleValues(params: z.output<typeof RuleParams>): q.PushRuleValues {
  const errors: Record<string, string[]> = {};
  for (const key of ["commit_message_regex", "commit_message_negative_regex", "branch_name_regex", "author_email_regex", "file_name_regex"] as const) {
    const pattern = params[key];
    const error = pattern ? regexError(pattern) : null;
    if (error) errors[key] = [error];
  }
  if (Object.keys(errors).length) throw validation(errors);
  const values: q.PushRuleValues = {};
  if (params.deny_delete_tag !== undefined) values.denyDeleteTag = params.deny_delete_tag;
  if (params.member_check !== undefined) values.memberCheck = params.member_check;
  if (params.prevent_secrets !== undefined) values.preventSecrets = params.prevent_secrets;
  if (params.commit_message_regex !== undefined) values.commitMessageRegex = params.commit_message_regex;
  if (params.commit_message_negative_regex !== undefined) values.commitMessageNegativeRegex = params.commit_message_negative_regex;
  if (params.branch_name_regex !== undefined) values.branchNameRegex = params.branch_name_regex;
  if (params.author_email_regex !== undefined) values.authorEmailRegex = params.author_email_regex;
  if (params.file_name_regex !== undefined) values.fileNameRegex = params.file_name_regex;
  if (params.max_file_size !== undefined) values.maxFileSize = params.max_file_size;
  if (params.commit_committer_check !== undefined) values.commitCommitterCheck = params.commit_committer_check;
  if (params.reject_unsigned_commits !== undefined) values.rejectUnsignedCommits = params.reject_unsigned_commits;
  return values;
}

async function projectOwner(c: Ctx): Promise<q.Owner> {
  requireUser(c);
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "admin_project", project);
  return { projectId: project.id };
}

async function groupOwner(c: Ctx): Promise<q.Owner> {
  requireUser(c);
  const group = await findGroup(c, c.req.param("id")!);
  authorizeGroup(c, "change_push_rules", group);
  return { groupId: group.id };
}

/** `not_found!('Push Rule')`. */
async function existing(c: Ctx, owner: q.Owner): Promise<q.PushRule> {
  const rule = await q.findPushRule(c.var.db(), owner);
  if (!rule) throw notFound("Push Rule");
  return rule;
}

/** GET /projects/:id/push_rule: the rule, or `null` when the project has none. */
pushRulesRoutes.get("/projects/:id/push_rule", { response: ProjectPushRule.nullable() }, async (c) => {
  const rule = await q.findPushRule(c.var.db(), await projectOwner(c));
  return rule ? c.json(projectPushRule(rule)) : c.json(null);
});

/** POST /projects/:id/push_rule */
pushRulesRoutes.post("/projects/:id/push_rule", { params: RuleParams, response: ProjectPushRule, errors: [422] }, async (c) => {
  const params = await readParams(c, RuleParams, AT_LEAST_ONE);
  const owner = await projectOwner(c);
  const created = await q.insertPushRule(c.var.db(), owner, ruleValues(params));
  if (!created) throw apiError("Project push rule exists", 422);
  return present(c, created, projectPushRule, undefined, 201);
});

/** PUT /projects/:id/push_rule */
pushRulesRoutes.put("/projects/:id/push_rule", { params: RuleParams, response: ProjectPushRule }, async (c) => {
  const params = await readParams(c, RuleParams, AT_LEAST_ONE);
  const rule = await existing(c, await projectOwner(c));
  const updated = await q.updatePushRule(c.var.db(), rule.id, ruleValues(params));
  if (!updated) throw notFound("Push Rule");
  return present(c, updated, projectPushRule);
});

/** DELETE /projects/:id/push_rule: 204. */
pushRulesRoutes.delete("/projects/:id/push_rule", async (c) => {
  const rule = await existing(c, await projectOwner(c));
  await q.deletePushRule(c.var.db(), rule.id);
  return c.body(null, 204);
});

/** GET /groups/:id/push_rule: `404 Push Rule Not Found` when the group has none. */
pushRulesRoutes.get("/groups/:id/push_rule", { response: GroupPushRule }, async (c) => {
  return present(c, await existing(c, await groupOwner(c)), groupPushRule);
});

/** POST /groups/:id/push_rule */
pushRulesRoutes.post("/groups/:id/push_rule", { params: RuleParams, response: GroupPushRule, errors: [422] }, async (c) => {
  const params = await readParams(c, RuleParams, AT_LEAST_ONE);
  const owner = await groupOwner(c);
  const created = await q.insertPushRule(c.var.db(), owner, ruleValues(params));
  if (!created) throw apiError("Group push rule exists, try updating", 422);
  return present(c, created, groupPushRule, undefined, 201);
});

/** PUT /groups/:id/push_rule */
pushRulesRoutes.put("/groups/:id/push_rule", { params: RuleParams, response: GroupPushRule }, async (c) => {
  const params = await readParams(c, RuleParams, AT_LEAST_ONE);
  const rule = await existing(c, await groupOwner(c));
  const updated = await q.updatePushRule(c.var.db(), rule.id, ruleValues(params));
  if (!updated) throw notFound("Push Rule");
  return present(c, updated, groupPushRule);
});

/** DELETE /groups/:id/push_rule: 204. */
pushRulesRoutes.delete("/groups/:id/push_rule", async (c) => {
  const rule = await existing(c, await groupOwner(c));
  await q.deletePushRule(c.var.db(), rule.id);
  return c.body(null, 204);
});
