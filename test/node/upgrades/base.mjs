// Rows the upgrade fixtures share, written by SQL at whatever migration level the database is at: only
// columns every level since 0035 has. `db.query(text, params)` returns `{ rows }` (a pg Client).

/** A group namespace and a project in it, as the API would have made them; returns their ids and paths. */
export async function insertProject(db, path) {
  const { rows: [group] } = await db.query(
    `INSERT INTO namespaces (type, name, path, full_path, full_name, visibility_level)
     VALUES ('Group', $1, $1, $1, $1, 0) RETURNING id`,
    [`${path}-group`],
  );
  const fullPath = `${path}-group/${path}`;
  const { rows: [project] } = await db.query(
    `INSERT INTO projects (namespace_id, name, path, full_path, name_with_namespace, creator_id)
     VALUES ($1, $2, $2, $3, $4, 1) RETURNING id`,
    [group.id, path, fullPath, `${path}-group / ${path}`],
  );
  return { groupId: group.id, projectId: project.id, fullPath };
}
