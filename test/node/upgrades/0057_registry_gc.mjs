// 0057 adds the registry's garbage collection: review queues written by triggers and
// `container_manifests.referenced_digests`, backfilled from each manifest's payload. An image pushed
// before it keeps its tag and references; deleting its tag afterwards queues its manifest for review.
import { insertProject } from "./base.mjs";

const digest = (c) => `sha256:${c.repeat(64)}`;

export async function fill(db) {
  const state = await insertProject(db, "registry-before-0057");
  const { rows: [repo] } = await db.query(`INSERT INTO container_repositories (project_id, name) VALUES ($1, '') RETURNING id`, [state.projectId]);
  for (const d of [digest("a"), digest("b")])
    await db.query(`INSERT INTO container_repository_blobs (repository_id, digest, size) VALUES ($1, $2, 10)`, [repo.id, d]);
  const payload = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: digest("a"), size: 10 },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: digest("b"), size: 10 }],
  });
  const { rows: [manifest] } = await db.query(
    `INSERT INTO container_manifests (repository_id, digest, media_type, payload, total_size, config_digest)
     VALUES ($1, $2, 'application/vnd.oci.image.manifest.v1+json', $3, 20, $4) RETURNING id`,
    [repo.id, digest("c"), payload, digest("a")],
  );
  await db.query(`INSERT INTO container_tags (repository_id, name, manifest_id) VALUES ($1, 'v1', $2)`, [repo.id, manifest.id]);
  return { ...state, repositoryId: repo.id, manifestId: manifest.id };
}

export async function check(api, { projectId, repositoryId, manifestId }, assert, db) {
  const { rows: [row] } = await db.query(`SELECT referenced_digests FROM container_manifests WHERE id = $1`, [manifestId]);
  assert.deepEqual([...row.referenced_digests].sort(), [digest("a"), digest("b")]);
  const tags = await api("GET", `/projects/${projectId}/registry/repositories/${repositoryId}/tags`);
  assert.deepEqual([tags.status, tags.body.map((t) => t.name)], [200, ["v1"]]);
  const deleted = await api("DELETE", `/projects/${projectId}/registry/repositories/${repositoryId}/tags/v1`);
  assert.equal(deleted.status, 200);
  const { rows: reviews } = await db.query(`SELECT manifest_id FROM container_registry_manifest_reviews WHERE manifest_id = $1`, [manifestId]);
  assert.equal(reviews.length, 1);
}
