// 0042 adds the issue boards' tables (boards, board_labels, lists): a project and a label written before
// them get a board with a label list after the upgrade, and the project starts with no board.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "boards-before-0042");
  const { rows: [label] } = await db.query(
    `INSERT INTO labels (project_id, title, color) VALUES ($1, 'Doing', '#FF0000') RETURNING id`,
    [projectId],
  );
  return { projectId, labelId: label.id };
}

export async function check(api, { projectId, labelId }, assert) {
  const none = await api("GET", `/projects/${projectId}/boards`);
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, []);
  const board = await api("POST", `/projects/${projectId}/boards`, { json: { name: "After 0042" } });
  assert.equal(board.status, 201);
  const list = await api("POST", `/projects/${projectId}/boards/${board.body.id}/lists`, { json: { label_id: labelId } });
  assert.equal(list.status, 201);
  assert.equal(list.body.label.name, "Doing");
}
