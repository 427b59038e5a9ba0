import { userBasic, UserBasic } from "../../entities/users";
import { findIssue } from "../../shared/issuables/find";
import { mentionedUsernames } from "../../entities/mentions";
import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { Access } from "../../kernel/access";
import * as q from "../queries";

export const participantRoutes = router();

/**
 * GET /projects/:id/issues/:issue_iid/participants (lib/api/issues.rb): `issue.visible_participants`
 * (Participable: the author, the assignees, note authors and users @mentioned in the description and
 * the notes), kept to those who may read the issue, in that order, paginated as an array.
 */
participantRoutes.get("/projects/:id/issues/:issue_iid/participants", { params: pageParams, response: [UserBasic] }, async (c) => {
  const params = await readParams(c, pageParams);
  const project = await findProject(c, c.req.param("id"));
  const issue = await findIssue(c, project, c.req.param("issue_iid"));
  const actor = c.var.actor;
  const readsConfidentialNotes =
    !!actor && (actor.isAdmin || project.accessLevel >= Access.REPORTER || issue.authorId === actor.user.id || issue.assigneeIds.includes(actor.user.id));
  const db = c.var.db();
  const noteRows = await q.participantNotes(db, issue.id, readsConfidentialNotes);

  const ids = [issue.authorId, ...issue.assigneeIds, ...noteRows.filter((n) => !n.system).map((n) => n.authorId)].filter(
    (id): id is number => id !== null,
  );
  const usernames = [...mentionedUsernames(issue.description), ...noteRows.flatMap((n) => mentionedUsernames(n.body))];
  const confidential = issue.confidential
    ? { confidentialIds: [issue.authorId, ...issue.assigneeIds].filter((id): id is number => id !== null) }
    : null;
  const found = await q.participantUsers(db, project.id, ids, usernames, confidential);

  // GitLab's order: the author, the assignees, note authors, then mentioned users; each once.
  const byId = new Map(found.map((u) => [u.id, u]));
  const byName = new Map(found.map((u) => [u.username.toLowerCase(), u]));
  const ordered = [...new Set([...ids.map((id) => byId.get(id)), ...usernames.map((name) => byName.get(name))])].filter(
    (u): u is (typeof found)[number] => !!u,
  );
  const page = pageOf(params);
  paginate(c, page, ordered.length);
  return present(c, ordered.slice(page.offset, page.offset + page.perPage), userBasic);
});
