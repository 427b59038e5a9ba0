import type { badges, epics, labels, members, milestones, Namespace } from "../../db/schema";
import { attributes } from "./project_export";

type RowOf<T extends { $inferSelect: unknown }> = T["$inferSelect"];

/** A group export's contents, as group_export/queries `groupExportRelations` loads them (one statement a relation). */
export type GroupExportRelations = {
  groups: Namespace[];
  labelRows: RowOf<typeof labels>[];
  milestoneRows: RowOf<typeof milestones>[];
  badgeRows: RowOf<typeof badges>[];
  memberRows: { member: RowOf<typeof members>; user: { id: number; username: string; publicEmail: string | null } }[];
  epicRows: RowOf<typeof epics>[];
  /** Epic label links with their label's title (an epic's labels are its group's or an ancestor's). */
  epicLabelRows: { epicId: number; title: string; color: string }[];
};

// import_export/group/import_export.yml `excluded_attributes: group`: ids of rows the archive does not
// carry, tokens, and our denormalised columns (full path and name, traversal ids, avatar).
const GROUP_EXCEPT = ["owner_id", "traversal_ids", "full_path", "full_name", "avatar_url", "file_template_project_id"];
const EPIC_EXCEPT = ["group_id", "parent_id", "closed_by_id"];

/**
 * The group archive's files in GitLab 15's ndjson layout (Gitlab::ImportExport::Group::TreeSaver):
 * `tree/groups/_all.ndjson` (the ids of the group and its descendants, parents first), then for each
 * group `tree/groups/<id>.json` (its attributes, `parent_id` included so the import rebuilds the tree)
 * and `tree/groups/<id>/<relation>.ndjson`: labels, milestones, badges, members (with their user's
 * username and public email, which MembersMapper matches), epics (with `parent` and `label_links`).
 */
export function groupExportTree(data: GroupExportRelations): { path: string; lines: unknown[] | null; json?: unknown }[] {
  const epicsById = new Map(data.epicRows.map((e) => [e.id, e]));
  const byGroup = <T>(rows: T[], groupId: (row: T) => number | null) => {
    const out = new Map<number, T[]>();
    for (const row of rows) {
      const id = groupId(row);
      if (id === null) continue;
      const found = out.get(id);
      if (found) found.push(row);
      else out.set(id, [row]);
    }
    return out;
  };
  const labelsOf = byGroup(data.labelRows, (l) => l.groupId);
  const milestonesOf = byGroup(data.milestoneRows, (m) => m.groupId);
  const badgesOf = byGroup(data.badgeRows, (b) => b.groupId);
  const membersOf = byGroup(data.memberRows, (m) => m.member.sourceId);
  const epicsOf = byGroup(data.epicRows, (e) => e.groupId);
  const epicLabels = byGroup(data.epicLabelRows, (l) => l.epicId);
  const files: { path: string; lines: unknown[] | null; json?: unknown }[] = [
    { path: "tree/groups/_all.ndjson", lines: data.groups.map((g) => g.id) },
  ];
  for (const g of data.groups) {
    const dir = `tree/groups/${g.id}`;
    files.push(
      { path: `${dir}.json`, lines: null, json: attributes(g, GROUP_EXCEPT) },
      { path: `${dir}/labels.ndjson`, lines: (labelsOf.get(g.id) ?? []).map((l) => ({ ...attributes(l, ["search_vector"]), type: "GroupLabel" })) },
      { path: `${dir}/milestones.ndjson`, lines: (milestonesOf.get(g.id) ?? []).map((m) => attributes(m)) },
      { path: `${dir}/badges.ndjson`, lines: (badgesOf.get(g.id) ?? []).map((b) => attributes(b)) },
      {
        path: `${dir}/members.ndjson`,
        lines: (membersOf.get(g.id) ?? []).map((m) => ({ ...attributes(m.member), user: { id: m.user.id, username: m.user.username, public_email: m.user.publicEmail } })),
      },
      {
        path: `${dir}/epics.ndjson`,
        lines: (epicsOf.get(g.id) ?? []).map((e) => {
          const parent = e.parentId !== null ? epicsById.get(e.parentId) : undefined;
          return {
            ...attributes(e, EPIC_EXCEPT),
            // GitLab nests the parent epic (`parent`); the import finds it again by iid in the same group.
            ...(parent && parent.groupId === e.groupId ? { parent: { iid: parent.iid, title: parent.title } } : {}),
            label_links: (epicLabels.get(e.id) ?? []).map((l) => ({ target_type: "Epic", label: { title: l.title, color: l.color, type: "GroupLabel" } })),
          };
        }),
      },
    );
  }
  return files;
}
