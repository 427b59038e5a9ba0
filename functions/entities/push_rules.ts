import * as z from "zod";
import type { PushRule as Row } from "../../db/schema";
import { isoTime } from "../kernel/present";

const RuleFields = {
  commit_message_regex: z.string().nullable(),
  commit_message_negative_regex: z.string().nullable(),
  branch_name_regex: z.string().nullable(),
  deny_delete_tag: z.boolean(),
  member_check: z.boolean(),
  prevent_secrets: z.boolean(),
  author_email_regex: z.string().nullable(),
  file_name_regex: z.string().nullable(),
  max_file_size: z.int(),
  commit_committer_check: z.boolean(),
  reject_unsigned_commits: z.boolean(),
};

function fields(row: Row) {
  return {
    commit_message_regex: row.commitMessageRegex,
    commit_message_negative_regex: row.commitMessageNegativeRegex,
    branch_name_regex: row.branchNameRegex,
    deny_delete_tag: row.denyDeleteTag,
    member_check: row.memberCheck,
    prevent_secrets: row.preventSecrets,
    author_email_regex: row.authorEmailRegex,
    file_name_regex: row.fileNameRegex,
    max_file_size: row.maxFileSize,
    commit_committer_check: row.commitCommitterCheck,
    reject_unsigned_commits: row.rejectUnsignedCommits,
  };
}

/** EE::API::Entities::ProjectPushRule (ee/lib/ee/api/entities/project_push_rule.rb). */
export const ProjectPushRule = z
  .object({ id: z.int(), project_id: z.int(), created_at: z.string().nullable(), ...RuleFields })
  .meta({ id: "ProjectPushRule" });
export function projectPushRule(row: Row): z.output<typeof ProjectPushRule> {
  return { id: row.id, project_id: row.projectId!, created_at: isoTime(row.createdAt), ...fields(row) };
}

/** EE::API::Entities::GroupPushRule (ee/lib/ee/api/entities/group_push_rule.rb). */
export const GroupPushRule = z.object({ id: z.int(), created_at: z.string().nullable(), ...RuleFields }).meta({ id: "GroupPushRule" });
export function groupPushRule(row: Row): z.output<typeof GroupPushRule> {
  return { id: row.id, created_at: isoTime(row.createdAt), ...fields(row) };
}
