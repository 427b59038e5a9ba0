// 0036 adds alert metric images, referencing alerts: an alert written before it reads back, with no images.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const { projectId } = await insertProject(db, "alerts-before-0036");
  await db.query(
    `INSERT INTO alert_management_alerts (iid, project_id, started_at, title) VALUES (1, $1, '2026-01-02T03:04:05Z', 'Disk full')`,
    [projectId],
  );
  return { projectId };
}

export async function check(api, { projectId }, assert) {
  const alert = await api("GET", `/projects/${projectId}/alert_management_alerts/1/metric_images`);
  assert.equal(alert.status, 200);
  assert.deepEqual(alert.body, []);
  const upload = await api("POST", `/projects/${projectId}/alert_management_alerts/1/metric_images`, {
    form: { file: new File(["png"], "graph.png", { type: "image/png" }), url: "https://example.com/graph" },
  });
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  assert.equal(upload.body.filename, "graph.png");
}
