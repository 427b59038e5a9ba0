// The registry's online garbage collection (functions/container_registry/gc.ts, migration 0057's triggers).
//
// The database is shared by every test file running at once, so these tests never sweep with a review
// delay of 0 (that would collect the untagged manifests and fresh uploads other files are still using):
// the sweeps run with the default delay (24h) or a delay given here, and each test makes only its own
// reviews due by moving their `queued_at` back. Every blob here has unique content, so no other file
// links it.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DEFAULT_REVIEW_DELAY_MS, reviewDelayMs, sweepRegistry } from "../../functions/container_registry/gc";
import { scheduleGarbageCollection } from "../../functions/container_registry/consumer";
import type { Bindings, RegistryMessage } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { rows } from "../helpers/db";
import { world, type World } from "../helpers/world";
import { basic, bearer, call, digestOf, pushBlob, registryToken } from "./support";

type Json = Record<string, any>;
const bindings = env as unknown as Bindings;
const bucket = bindings.BLOBS;
const key = (digest: string) => `registry/blobs/${digest.replace(":", "/")}`;

/** An OCI image of unique config and the given layers, pushed under `tag`; its digests. */
async function pushImage(image: string, token: string, tag: string, layers: string[]) {
  const config = JSON.stringify({ architecture: "amd64", os: "linux", salt: crypto.randomUUID() });
  const configDigest = await pushBlob(image, token, config);
  const layerDigests: string[] = [];
  for (const layer of layers) layerDigests.push(await pushBlob(image, token, layer));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.length },
    layers: layers.map((l, i) => ({ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: layerDigests[i], size: l.length })),
  });
  const res = await call("PUT", `/v2/${image}/manifests/${tag}`, { ...bearer(token), "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, manifest);
  expect(res.status).toBe(201);
  return { digest: await digestOf(manifest), manifest, configDigest, layerDigests, blobs: [configDigest, ...layerDigests], sizes: [config.length, ...layers.map((l) => l.length)] };
}

async function setup(w: World) {
  const maintainer = await w.user();
  const project = await w.project({ maintainers: [maintainer] });
  const image = project.fullPath.toLowerCase();
  const token = await registryToken(basic(maintainer.token), `repository:${image}:pull,push,delete`);
  return { maintainer, project, image, token };
}

const manifestIds = async (w: World, digests: string[]) =>
  (await rows<{ id: number }>(w, sql`SELECT id FROM container_manifests WHERE digest = ANY(${sql.param(digests)}::text[]) ORDER BY id`)).map((r) => Number(r.id));

/** Makes these reviews due under the default delay (queued two days ago). */
async function makeDue(w: World, { manifests = [], blobs = [] }: { manifests?: number[]; blobs?: string[] }) {
  await rows(w, sql`UPDATE container_registry_manifest_reviews SET queued_at = now() - interval '2 days' WHERE manifest_id = ANY(${sql.param(manifests)}::int[]) RETURNING 1`);
  await rows(w, sql`UPDATE container_registry_blob_reviews SET queued_at = now() - interval '2 days' WHERE digest = ANY(${sql.param(blobs)}::text[]) RETURNING 1`);
}

const blobReviews = async (w: World, digests: string[]) =>
  (await rows<{ digest: string }>(w, sql`SELECT digest FROM container_registry_blob_reviews WHERE digest = ANY(${sql.param(digests)}::text[]) ORDER BY digest`)).map((r) => r.digest);
const links = async (w: World, digests: string[]) =>
  rows<{ repository_id: number; digest: string }>(w, sql`SELECT repository_id, digest FROM container_repository_blobs WHERE digest = ANY(${sql.param(digests)}::text[]) ORDER BY digest, repository_id`);
const inR2 = async (digests: string[]) => Promise.all(digests.map(async (d) => (await bucket.head(key(d))) !== null));

/** A bucket that records the keys deleted through it. */
function recording(deleted: string[]): R2Bucket {
  return {
    delete: async (keys: string | string[]) => {
      deleted.push(...[keys].flat());
      return bucket.delete(keys);
    },
  } as unknown as R2Bucket;
}

describe("registry garbage collection: the review delay", () => {
  it("reads REGISTRY_GC_REVIEW_DELAY as a Go duration, 24h when unset or invalid", () => {
    expect(reviewDelayMs({})).toBe(DEFAULT_REVIEW_DELAY_MS);
    expect(DEFAULT_REVIEW_DELAY_MS).toBe(24 * 3600e3);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "0" })).toBe(0);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "90m" })).toBe(90 * 60e3);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "1h30m15s" })).toBe(5415e3);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "250ms" })).toBe(250);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "1 day" })).toBe(DEFAULT_REVIEW_DELAY_MS);
    expect(reviewDelayMs({ REGISTRY_GC_REVIEW_DELAY: "-5m" })).toBe(DEFAULT_REVIEW_DELAY_MS);
  });
});

describe("registry garbage collection: a deleted tag", () => {
  it("collects the unshared layers and the manifest after the delay; the shared layer and the other image stay", async () => {
    const w = await world();
    const a = await setup(w);
    const b = await setup(w);
    const shared = `shared ${crypto.randomUUID()}`;
    const imageA = await pushImage(a.image, a.token, "v1", [shared, `only a ${crypto.randomUUID()}`]);
    const imageB = await pushImage(b.image, b.token, "v1", [shared, `only b ${crypto.randomUUID()}`]);
    const [repoA] = (await (await w.as(a.maintainer).get(`/projects/${a.project.id}/registry/repositories`)).json()) as Json[];
    const [manifestA] = await manifestIds(w, [imageA.digest]);

    // The tag's delete queues its manifest, in its own transaction.
    expect((await w.as(a.maintainer).delete(`/projects/${a.project.id}/registry/repositories/${repoA.id}/tags/v1`)).status).toBe(200);
    const [queued] = await rows(w, sql`SELECT queued_at > now() - interval '1 minute' AS fresh FROM container_registry_manifest_reviews WHERE manifest_id = ${manifestA}`);
    expect(queued).toEqual({ fresh: true });

    // Within the delay (24h by default) nothing is taken.
    await sweepRegistry(bindings);
    expect(await manifestIds(w, [imageA.digest])).toEqual([manifestA]);

    // Due: the untagged manifest goes; its blobs are queued for their own review.
    await makeDue(w, { manifests: [manifestA] });
    const first = await sweepRegistry(bindings);
    expect(first.manifestsDeleted).toBeGreaterThanOrEqual(1);
    expect(await manifestIds(w, [imageA.digest])).toEqual([]);
    expect(await blobReviews(w, imageA.blobs)).toEqual([...imageA.blobs].sort());
    expect(await inR2(imageA.blobs)).toEqual([true, true, true]);

    await makeDue(w, { blobs: imageA.blobs });
    const deleted: string[] = [];
    const second = await sweepRegistry(bindings, recording(deleted));
    const [configA, sharedDigest, onlyA] = imageA.blobs;
    expect(second.blobsDeleted).toEqual(expect.arrayContaining([configA, onlyA]));
    expect(second.blobsDeleted).not.toContain(sharedDigest);
    expect(deleted.filter((k) => imageA.blobs.map(key).includes(k)).sort()).toEqual([key(configA), key(onlyA)].sort());
    expect(await inR2(imageA.blobs)).toEqual([false, true, false]);
    // The rows: repository A links nothing, B keeps its three; no review is left.
    const repoBId = Number((await rows(w, sql`SELECT id FROM container_repositories WHERE project_id = ${b.project.id}`))[0].id);
    expect(await links(w, [...imageA.blobs, ...imageB.blobs])).toEqual(
      imageB.blobs.map((digest) => ({ repository_id: repoBId, digest })).sort((x, y) => x.digest.localeCompare(y.digest)),
    );
    expect(await blobReviews(w, imageA.blobs)).toEqual([]);

    // Image B still pulls, every byte of it.
    const pull = await registryToken(basic(b.maintainer.token), `repository:${b.image}:pull`);
    const got = await call("GET", `/v2/${b.image}/manifests/v1`, { ...bearer(pull), Accept: "application/vnd.oci.image.manifest.v1+json" });
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(imageB.manifest);
    for (const digest of imageB.blobs) {
      const blob = await call("GET", `/v2/${b.image}/blobs/${digest}`, bearer(pull));
      expect(blob.status).toBe(200);
      expect(await digestOf(new Uint8Array(await blob.arrayBuffer()))).toBe(digest);
    }

    // Statistics follow the rows: A holds nothing, B its three blobs.
    const stats = async (user: typeof a.maintainer, id: number) =>
      ((await (await w.as(user).get(`/projects/${id}`, { query: { statistics: true } })).json()) as Json).statistics.container_registry_size;
    expect(await stats(a.maintainer, a.project.id)).toBe(0);
    expect(await stats(b.maintainer, b.project.id)).toBe(imageB.sizes.reduce((x, y) => x + y, 0));
    const one = (await (await w.as(a.maintainer).get(`/registry/repositories/${repoA.id}`, { query: { size: true } })).json()) as Json;
    expect(one.size).toBe(0);
  });

  it("honours the delay the environment sets", async () => {
    const w = await world();
    const a = await setup(w);
    const image = await pushImage(a.image, a.token, "v1", [`layer ${crypto.randomUUID()}`]);
    expect((await call("DELETE", `/v2/${a.image}/manifests/v1`, bearer(a.token))).status).toBe(202);
    const [id] = await manifestIds(w, [image.digest]);
    await rows(w, sql`UPDATE container_registry_manifest_reviews SET queued_at = now() - interval '2 hours' WHERE manifest_id = ${id} RETURNING 1`);
    await sweepRegistry({ ...bindings, REGISTRY_GC_REVIEW_DELAY: "3h" });
    expect(await manifestIds(w, [image.digest])).toEqual([id]);
    await sweepRegistry({ ...bindings, REGISTRY_GC_REVIEW_DELAY: "1h" });
    expect(await manifestIds(w, [image.digest])).toEqual([]);
  });

  it("takes at most `limit` reviews of a kind per sweep and says when it was full", async () => {
    const w = await world();
    const a = await setup(w);
    const images = [await pushImage(a.image, a.token, "v1", [`one ${crypto.randomUUID()}`]), await pushImage(a.image, a.token, "v2", [`two ${crypto.randomUUID()}`])];
    for (const tag of ["v1", "v2"]) expect((await call("DELETE", `/v2/${a.image}/manifests/${tag}`, bearer(a.token))).status).toBe(202);
    const ids = await manifestIds(w, images.map((i) => i.digest));
    await makeDue(w, { manifests: ids });
    const first = await sweepRegistry(bindings, bucket, new Date(), 1);
    expect([first.manifestsDeleted, first.full]).toEqual([1, true]);
    expect(await manifestIds(w, images.map((i) => i.digest))).toHaveLength(1);
    const second = await sweepRegistry(bindings, bucket, new Date(), 1);
    expect(second.manifestsDeleted).toBe(1);
    expect(await manifestIds(w, images.map((i) => i.digest))).toEqual([]);
  });
});

describe("registry garbage collection: moved tags and indexes", () => {
  it("queues the manifest a pushed tag left, and an index's manifests once the index goes", async () => {
    const w = await world();
    const a = await setup(w);
    const old = await pushImage(a.image, a.token, "v1", [`old ${crypto.randomUUID()}`]);
    const current = await pushImage(a.image, a.token, "v1", [`new ${crypto.randomUUID()}`]);
    const [oldId] = await manifestIds(w, [old.digest]);
    expect(await rows(w, sql`SELECT manifest_id FROM container_registry_manifest_reviews WHERE manifest_id = ${oldId}`)).toHaveLength(1);
    await makeDue(w, { manifests: [oldId] });
    await sweepRegistry(bindings);
    expect(await manifestIds(w, [old.digest, current.digest])).toHaveLength(1);
    expect(await manifestIds(w, [current.digest])).toHaveLength(1);

    // An index tagged `multi` lists a manifest pushed by digest only.
    const child = await pushImage(a.image, a.token, "child", [`child ${crypto.randomUUID()}`]);
    expect((await call("DELETE", `/v2/${a.image}/manifests/child`, bearer(a.token))).status).toBe(202);
    const index = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", digest: child.digest, size: child.manifest.length, platform: { architecture: "amd64", os: "linux" } }],
    });
    const put = await call("PUT", `/v2/${a.image}/manifests/multi`, { ...bearer(a.token), "Content-Type": "application/vnd.oci.image.index.v1+json" }, index);
    expect(put.status).toBe(201);
    const [childId] = await manifestIds(w, [child.digest]);
    // Untagged but listed by the index: kept, its review dropped.
    await makeDue(w, { manifests: [childId] });
    await sweepRegistry(bindings);
    expect(await manifestIds(w, [child.digest])).toEqual([childId]);
    // The index's tag goes: the index, then (queued by its deletion) the manifest it listed, then its blobs.
    expect((await call("DELETE", `/v2/${a.image}/manifests/multi`, bearer(a.token))).status).toBe(202);
    const [indexId] = await manifestIds(w, [await digestOf(index)]);
    await makeDue(w, { manifests: [indexId] });
    await sweepRegistry(bindings);
    expect(await manifestIds(w, [await digestOf(index)])).toEqual([]);
    expect(await rows(w, sql`SELECT manifest_id FROM container_registry_manifest_reviews WHERE manifest_id = ${childId}`)).toHaveLength(1);
    await makeDue(w, { manifests: [childId] });
    await sweepRegistry(bindings);
    expect(await manifestIds(w, [child.digest])).toEqual([]);
    expect(await blobReviews(w, child.blobs)).toEqual([...child.blobs].sort());
  });
});

describe("registry garbage collection: references that come back", () => {
  it("drops a blob review when a manifest references the blob again, and a manifest review when a tag points at it again", async () => {
    const w = await world();
    const a = await setup(w);
    const layers = [`layer ${crypto.randomUUID()}`];
    const image = await pushImage(a.image, a.token, "v1", layers);
    const [id] = await manifestIds(w, [image.digest]);
    // The tag moves away and comes back before the review: the review is dropped, the manifest stays.
    expect((await call("DELETE", `/v2/${a.image}/manifests/v1`, bearer(a.token))).status).toBe(202);
    const again = await call("PUT", `/v2/${a.image}/manifests/v2`, { ...bearer(a.token), "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, image.manifest);
    expect(again.status).toBe(201);
    await makeDue(w, { manifests: [id] });
    const kept = await sweepRegistry(bindings);
    expect(kept.manifestReviewsDropped).toBeGreaterThanOrEqual(1);
    expect(await manifestIds(w, [image.digest])).toEqual([id]);
    expect(await rows(w, sql`SELECT 1 FROM container_registry_manifest_reviews WHERE manifest_id = ${id}`)).toEqual([]);

    // Deleted by digest: its blobs are queued; the same image is pushed again before their review.
    expect((await call("DELETE", `/v2/${a.image}/manifests/${image.digest}`, bearer(a.token))).status).toBe(202);
    expect(await blobReviews(w, image.blobs)).toEqual([...image.blobs].sort());
    const put = await call("PUT", `/v2/${a.image}/manifests/v3`, { ...bearer(a.token), "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, image.manifest);
    expect(put.status).toBe(201);
    await makeDue(w, { blobs: image.blobs });
    const deleted: string[] = [];
    const result = await sweepRegistry(bindings, recording(deleted));
    expect(result.blobsDeleted.filter((d) => image.blobs.includes(d))).toEqual([]);
    expect(deleted.filter((k) => image.blobs.map(key).includes(k))).toEqual([]);
    expect(await blobReviews(w, image.blobs)).toEqual([]);
    expect(await inR2(image.blobs)).toEqual([true, true]);
    expect((await links(w, image.blobs)).length).toBe(2);
  });

  it("keeps a blob uploaded again within the delay, and collects a blob no manifest ever referenced", async () => {
    const w = await world();
    const a = await setup(w);
    const content = `dangling ${crypto.randomUUID()}`;
    const digest = await pushBlob(a.image, a.token, content);
    // The upload queued it (GitLab's gc_track_blob_uploads); once due, a new upload moves it to now.
    expect(await blobReviews(w, [digest])).toEqual([digest]);
    await makeDue(w, { blobs: [digest] });
    await pushBlob(a.image, a.token, content);
    await sweepRegistry(bindings);
    expect(await inR2([digest])).toEqual([true]);
    expect((await links(w, [digest])).length).toBe(1);
    // No manifest references it by the time the review is due: link and object go.
    await makeDue(w, { blobs: [digest] });
    const result = await sweepRegistry(bindings);
    expect(result.blobsDeleted).toContain(digest);
    expect(await inR2([digest])).toEqual([false]);
    expect(await links(w, [digest])).toEqual([]);
    const head = await call("HEAD", `/v2/${a.image}/blobs/${digest}`, bearer(a.token));
    expect(head.status).toBe(404);
  });

  it("queues a deleted repository's blobs; the sweep deletes those no other repository links", async () => {
    const w = await world();
    const a = await setup(w);
    const image = await pushImage(a.image, a.token, "v1", [`layer ${crypto.randomUUID()}`]);
    const [repo] = (await (await w.as(a.maintainer).get(`/projects/${a.project.id}/registry/repositories`)).json()) as Json[];
    expect((await w.as(a.maintainer).delete(`/projects/${a.project.id}/registry/repositories/${repo.id}`)).status).toBe(202);
    // The objects stay until the review (as GitLab's registry: the delete only queues them).
    expect(await inR2(image.blobs)).toEqual([true, true]);
    expect(await blobReviews(w, image.blobs)).toEqual([...image.blobs].sort());
    await makeDue(w, { blobs: image.blobs });
    await sweepRegistry(bindings);
    expect(await inR2(image.blobs)).toEqual([false, false]);
    expect(await blobReviews(w, image.blobs)).toEqual([]);
  });
});

describe("registry garbage collection: two sweeps at once", () => {
  it("take each review once (SKIP LOCKED): every manifest and object is deleted once", async () => {
    const w = await world();
    const a = await setup(w);
    const images = [];
    for (let i = 0; i < 6; i++) images.push(await pushImage(a.image, a.token, `v${i}`, [`layer ${i} ${crypto.randomUUID()}`]));
    const [repo] = (await (await w.as(a.maintainer).get(`/projects/${a.project.id}/registry/repositories`)).json()) as Json[];
    // The bulk delete queues every manifest it untagged.
    expect((await w.as(a.maintainer).delete(`/projects/${a.project.id}/registry/repositories/${repo.id}/tags`, { query: { name_regex_delete: "v.*" } })).status).toBe(202);
    const ids = await manifestIds(w, images.map((i) => i.digest));
    expect(ids).toHaveLength(6);
    await makeDue(w, { manifests: ids });
    const [m1, m2] = await Promise.all([sweepRegistry(bindings), sweepRegistry(bindings)]);
    expect(m1.manifestsDeleted + m2.manifestsDeleted).toBeGreaterThanOrEqual(6);
    expect(await manifestIds(w, images.map((i) => i.digest))).toEqual([]);

    const blobs = images.flatMap((i) => i.blobs);
    await makeDue(w, { blobs });
    const deleted1: string[] = [];
    const deleted2: string[] = [];
    const [b1, b2] = await Promise.all([sweepRegistry(bindings, recording(deleted1)), sweepRegistry(bindings, recording(deleted2))]);
    const mine = new Set(blobs.map(key));
    const all = [...deleted1, ...deleted2].filter((k) => mine.has(k)).sort();
    expect(all).toEqual([...mine].sort());
    expect([...b1.blobsDeleted, ...b2.blobsDeleted].filter((d) => blobs.includes(d)).sort()).toEqual([...blobs].sort());
    expect(await inR2(blobs)).toEqual(blobs.map(() => false));
    expect(await links(w, blobs)).toEqual([]);
  });
});

describe("registry garbage collection: the cron and the edgeforge-registry queue", () => {
  it("the cron queues a sweep; the consumer runs it and acks", async () => {
    const sent: RegistryMessage[] = [];
    await scheduleGarbageCollection({ ...bindings, REGISTRY_QUEUE: { send: async (body: RegistryMessage) => void sent.push(body) } as unknown as Queue<RegistryMessage> });
    expect(sent).toEqual([{ kind: "garbage_collect" }]);

    const w = await world();
    const a = await setup(w);
    const image = await pushImage(a.image, a.token, "v1", [`layer ${crypto.randomUUID()}`]);
    expect((await call("DELETE", `/v2/${a.image}/manifests/v1`, bearer(a.token))).status).toBe(202);
    await makeDue(w, { manifests: await manifestIds(w, [image.digest]) });
    const batch = createMessageBatch("edgeforge-registry", [{ id: `gc-${a.project.id}`, timestamp: new Date(), attempts: 1, body: sent[0] }]);
    const ctx = createExecutionContext();
    await queue(batch, bindings, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`gc-${a.project.id}`]);
    expect(await manifestIds(w, [image.digest])).toEqual([]);
  });
});
