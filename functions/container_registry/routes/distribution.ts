import * as z from "zod";
import type { ProjectWithAccess } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { ApiError } from "../../kernel/errors";
import { decodeQuery, p, validateParams } from "../../kernel/params";
import { baseUrl } from "../../kernel/present";
import { router } from "../../kernel/router";
import { catalog, registryErrors, tagList, type RegistryErrorCode } from "../../entities/container_registry";
import { imageProject, validImageName } from "../access";
import { SERVICE, verifyToken } from "../jwt";
import * as q from "../queries";
import { assembleBlob, blobKey, DIGEST, removeParts, writeParts } from "../services";

/**
 * The OCI distribution API (Docker Registry HTTP API v2) at `/v2/`, outside /api/v4, as GitLab's
 * registry serves it: Bearer tokens from `/jwt/auth` (jwt.ts), image names `<project path>[/<name>]`.
 * `/v2/_catalog` answers tokens with `registry:catalog:*` (administrators). Not built: OCI referrers, cross-project
 * blob reuse without a mount, manifest format conversion (a manifest is served as it was pushed).
 */
export const distributionRoutes = router({ tokenInBody: true });

type Action = "pull" | "push" | "delete";

function registryError(status: number, code: RegistryErrorCode, detail?: unknown, headers: Record<string, string> = {}): ApiError {
  return new ApiError(status, registryErrors(code, detail), headers);
}

/** The Bearer challenge: where to get a token, and for what. */
function challenge(c: Ctx, scope: string | null, error?: string): Record<string, string> {
  const parts = [`realm="${baseUrl(c)}/jwt/auth"`, `service="${SERVICE}"`];
  if (scope) parts.push(`scope="${scope}"`);
  if (error) parts.push(`error="${error}"`);
  return { "WWW-Authenticate": `Bearer ${parts.join(",")}` };
}

/**
 * The image the route names, if the Bearer token grants `action` on it: no token, a bad one or one
 * without the action is 401 with the challenge for the scope needed; a name no project holds is
 * NAME_UNKNOWN. Nothing is read or written without the grant.
 */
async function authorizeImage(c: Ctx, action: Action): Promise<{ project: ProjectWithAccess; image: string; name: string }> {
  const image = c.req.param("name") ?? "";
  if (!validImageName(image)) throw registryError(400, "NAME_INVALID", { name: image });
  const scope = `repository:${image}:${action === "push" ? "pull,push" : action}`;
  const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  const claims = bearer ? await verifyToken(c.var.db(), bearer[1]) : null;
  if (!claims) throw registryError(401, "UNAUTHORIZED", undefined, challenge(c, scope, bearer ? "invalid_token" : undefined));
  const granted = claims.access.some((a) => a.type === "repository" && a.name === image && a.actions.includes(action));
  if (!granted) throw registryError(401, "UNAUTHORIZED", undefined, challenge(c, scope, "insufficient_scope"));
  const found = await imageProject(c, image, null);
  if (!found) throw registryError(404, "NAME_UNKNOWN", { name: image });
  return { project: found.project, image, name: found.name };
}

const Query = z.object({
  digest: p.string().optional(),
  mount: p.string().optional(),
  from: p.string().optional(),
  n: p.string().optional(),
  last: p.string().optional(),
});
/** The query string only: request bodies here are blobs and manifests, never parameters. */
const query = (c: Ctx) => validateParams(decodeQuery(new URL(c.req.url).search.slice(1)), Query);

const uploadLocation = (image: string, uuid: string) => `/v2/${image}/blobs/uploads/${uuid}`;
const blobLocation = (image: string, digest: string) => `/v2/${image}/blobs/${digest}`;
const rangeOf = (parts: number[]) => `0-${Math.max(parts.reduce((a, b) => a + b, 0) - 1, 0)}`;

function uploadAccepted(c: Ctx, image: string, uuid: string, parts: number[]) {
  return c.body(null, 202, { Location: uploadLocation(image, uuid), Range: rangeOf(parts), "Docker-Upload-UUID": uuid, "Content-Length": "0" });
}

function blobCreated(c: Ctx, image: string, digest: string) {
  return c.body(null, 201, { Location: blobLocation(image, digest), "Docker-Content-Digest": digest, "Content-Length": "0" });
}

/** Finishes an upload whose parts are written: verifies the digest, links the blob, ends the session. */
async function finishUpload(c: Ctx, at: { project: ProjectWithAccess; image: string; name: string }, uuid: string, parts: number[], digest: string, session: boolean) {
  const db = c.var.db();
  // Before reading whether the object exists: a garbage collection of this digest has finished, and none starts within the review delay.
  await q.holdBlob(db, digest);
  const matches = await assembleBlob(c.env.BLOBS, uuid, parts, digest);
  if (!matches) {
    if (session) await q.deleteUpload(db, uuid);
    throw registryError(400, "DIGEST_INVALID", { digest });
  }
  const size = parts.reduce((a, b) => a + b, 0);
  if (session) await q.completeUpload(db, uuid, at.project.id, at.name, digest, size);
  else await q.linkBlob(db, at.project.id, at.name, digest, size);
  return blobCreated(c, at.image, digest);
}

/** GET /v2/: the API version check; 401 with the Bearer challenge until the client holds a token. */
distributionRoutes.get("/v2", { summary: "OCI distribution: API version check" }, async (c) => {
  const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  const claims = bearer ? await verifyToken(c.var.db(), bearer[1]) : null;
  if (!claims) throw registryError(401, "UNAUTHORIZED", undefined, challenge(c, null));
  return c.json({});
});

/** `n` of the list endpoints: a count up to 1000 (the default); anything else reads as the default. */
const pageSize = (n: string | undefined) => (n !== undefined && /^\d+$/.test(n) ? Math.min(Number(n), 1000) : 1000);

/**
 * GET /v2/_catalog: every image path in lexical order, `n` at a time after `last`, with a `Link` to the
 * next page. GitLab's registry serves it to tokens granting `registry:catalog:*`, which `/jwt/auth`
 * gives administrators only; any other caller gets 401 with the challenge for that scope.
 */
distributionRoutes.get("/v2/_catalog", { params: Query, summary: "OCI distribution: catalog of images (administrators)" }, async (c) => {
  const scope = "registry:catalog:*";
  const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
  const claims = bearer ? await verifyToken(c.var.db(), bearer[1]) : null;
  if (!claims) throw registryError(401, "UNAUTHORIZED", undefined, challenge(c, scope, bearer ? "invalid_token" : undefined));
  if (!claims.access.some((a) => a.type === "registry" && a.name === "catalog" && a.actions.includes("*")))
    throw registryError(401, "UNAUTHORIZED", undefined, challenge(c, scope, "insufficient_scope"));
  const params = query(c);
  const n = pageSize(params.n);
  const names = n === 0 ? [] : await q.catalogNames(c.var.db(), n, params.last ?? null);
  const page = names.slice(0, n);
  if (names.length > n) c.header("Link", `</v2/_catalog?n=${n}&last=${encodeURIComponent(page[page.length - 1])}>; rel="next"`);
  return c.json(catalog(page));
});

/** POST /v2/<name>/blobs/uploads/: a session (202), a monolithic upload with `digest` (201), or a mount with `mount`/`from` (201). */
distributionRoutes.post("/v2/:name{.+}/blobs/uploads", { params: Query }, async (c) => {
  const at = await authorizeImage(c, "push");
  const params = query(c);
  const db = c.var.db();
  if (params.mount && params.from && DIGEST.test(params.mount)) {
    // Cross-repository mount: only from an image the same token may pull, holding the blob.
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")!;
    const claims = (await verifyToken(db, bearer[1]))!;
    const mayPull = claims.access.some((a) => a.type === "repository" && a.name === params.from && a.actions.includes("pull"));
    const source = mayPull && validImageName(params.from) ? await imageProject(c, params.from, null) : null;
    const size = source ? await q.linkedBlob(db, source.project.id, source.name, params.mount) : null;
    if (size !== null) await q.holdBlob(db, params.mount);
    if (size !== null && (await c.env.BLOBS.head(blobKey(params.mount)))) {
      await q.linkBlob(db, at.project.id, at.name, params.mount, size);
      return blobCreated(c, at.image, params.mount);
    }
  }
  const uuid = crypto.randomUUID();
  if (params.digest !== undefined) {
    if (!DIGEST.test(params.digest)) throw registryError(400, "DIGEST_INVALID", { digest: params.digest });
    const parts = await writeParts(c.env.BLOBS, uuid, 0, c.req.raw.body);
    return finishUpload(c, at, uuid, parts, params.digest, false);
  }
  await q.createUpload(db, uuid, at.project.id, at.name);
  return uploadAccepted(c, at.image, uuid, []);
});

async function findUpload(c: Ctx, at: { project: ProjectWithAccess; name: string }) {
  const uuid = c.req.param("uuid") ?? "";
  const upload = /^[0-9a-f-]{36}$/.test(uuid) ? await q.findUpload(c.var.db(), uuid, at.project.id, at.name) : null;
  if (!upload) throw registryError(404, "BLOB_UPLOAD_UNKNOWN", { uuid });
  return upload;
}

/** GET /v2/<name>/blobs/uploads/<uuid>: the session's progress (204 with `Range`). */
distributionRoutes.get("/v2/:name{.+}/blobs/uploads/:uuid", async (c) => {
  const at = await authorizeImage(c, "push");
  const upload = await findUpload(c, at);
  return c.body(null, 204, { Location: uploadLocation(at.image, upload.uuid), Range: rangeOf(upload.parts), "Docker-Upload-UUID": upload.uuid });
});

/** PATCH /v2/<name>/blobs/uploads/<uuid>: a chunk; `Content-Range` must start where the last one ended (else 416). */
distributionRoutes.patch("/v2/:name{.+}/blobs/uploads/:uuid", async (c) => {
  const at = await authorizeImage(c, "push");
  const upload = await findUpload(c, at);
  const offset = upload.parts.reduce((a, b) => a + b, 0);
  const range = /^(?:bytes[= ])?(\d+)-(\d+)$/.exec(c.req.header("content-range") ?? "");
  if (c.req.header("content-range") && (!range || Number(range[1]) !== offset)) throw registryError(416, "RANGE_INVALID", { offset });
  const sizes = await writeParts(c.env.BLOBS, upload.uuid, upload.parts.length, c.req.raw.body);
  if (!(await q.appendParts(c.var.db(), upload.uuid, upload.parts.length, sizes))) {
    await removeParts(c.env.BLOBS, upload.uuid, upload.parts.length + sizes.length, upload.parts.length);
    throw registryError(416, "RANGE_INVALID", { offset });
  }
  return uploadAccepted(c, at.image, upload.uuid, [...upload.parts, ...sizes]);
});

/** PUT /v2/<name>/blobs/uploads/<uuid>?digest=: the last chunk (optional) and the digest the content must have. */
distributionRoutes.put("/v2/:name{.+}/blobs/uploads/:uuid", { params: Query }, async (c) => {
  const at = await authorizeImage(c, "push");
  const upload = await findUpload(c, at);
  const digest = query(c).digest ?? "";
  const sizes = await writeParts(c.env.BLOBS, upload.uuid, upload.parts.length, c.req.raw.body);
  const parts = [...upload.parts, ...sizes];
  if (!DIGEST.test(digest)) {
    await removeParts(c.env.BLOBS, upload.uuid, parts.length);
    await q.deleteUpload(c.var.db(), upload.uuid);
    throw registryError(400, "DIGEST_INVALID", { digest });
  }
  return finishUpload(c, at, upload.uuid, parts, digest, true);
});

/** DELETE /v2/<name>/blobs/uploads/<uuid>: cancels the session and drops its bytes. */
distributionRoutes.delete("/v2/:name{.+}/blobs/uploads/:uuid", async (c) => {
  const at = await authorizeImage(c, "push");
  const upload = await findUpload(c, at);
  await q.deleteUpload(c.var.db(), upload.uuid);
  await removeParts(c.env.BLOBS, upload.uuid, upload.parts.length);
  return c.body(null, 204);
});

/** GET and HEAD /v2/<name>/blobs/<digest>: the blob, or the `Range` asked for (206). */
distributionRoutes.get("/v2/:name{.+}/blobs/:digest", async (c) => {
  const at = await authorizeImage(c, "pull");
  const digest = c.req.param("digest")!;
  const size = DIGEST.test(digest) ? await q.linkedBlob(c.var.db(), at.project.id, at.name, digest) : null;
  if (size === null) throw registryError(404, "BLOB_UNKNOWN", { digest });
  const headers: Record<string, string> = { "Docker-Content-Digest": digest, "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes", ETag: `"${digest}"` };
  const range = /^bytes=(\d+)-(\d*)$/.exec(c.req.header("range") ?? "");
  if (c.req.method === "HEAD") return c.body(null, 200, { ...headers, "Content-Length": String(size) });
  if (range) {
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start > end) return c.body(null, 416, { "Content-Range": `bytes */${size}` });
    const object = await c.env.BLOBS.get(blobKey(digest), { range: { offset: start, length: end - start + 1 } });
    if (!object) throw registryError(404, "BLOB_UNKNOWN", { digest });
    return new Response(object.body, { status: 206, headers: { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": String(end - start + 1) } });
  }
  const object = await c.env.BLOBS.get(blobKey(digest));
  if (!object) throw registryError(404, "BLOB_UNKNOWN", { digest });
  return new Response(object.body, { headers: { ...headers, "Content-Length": String(size) } });
});

/**
 * DELETE /v2/<name>/blobs/<digest>: unlinks the blob from the repository (202); the garbage collector
 * deletes its bytes once no repository links them (the unlink queues the review).
 */
distributionRoutes.delete("/v2/:name{.+}/blobs/:digest", async (c) => {
  const at = await authorizeImage(c, "delete");
  const digest = c.req.param("digest")!;
  if (!DIGEST.test(digest) || !(await q.unlinkBlob(c.var.db(), at.project.id, at.name, digest))) throw registryError(404, "BLOB_UNKNOWN", { digest });
  return c.body(null, 202, { "Content-Length": "0" });
});

const MANIFEST_TYPES = {
  "application/vnd.docker.distribution.manifest.v2+json": "image",
  "application/vnd.oci.image.manifest.v1+json": "image",
  "application/vnd.docker.distribution.manifest.list.v2+json": "index",
  "application/vnd.oci.image.index.v1+json": "index",
} as const;
const TAG = /^[\w][\w.-]{0,127}$/;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

type Descriptor = { digest?: unknown; size?: unknown; urls?: unknown };

/** The manifest's media type, the blobs and manifests it references and its image size; null when it is none of the four formats. */
function parseManifest(payload: string, contentType: string) {
  let doc: { mediaType?: unknown; schemaVersion?: unknown; config?: Descriptor; layers?: Descriptor[]; manifests?: Descriptor[] };
  try {
    doc = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!doc || typeof doc !== "object" || doc.schemaVersion !== 2) return null;
  const mediaType = typeof doc.mediaType === "string" ? doc.mediaType : contentType.split(";")[0].trim();
  const kind = MANIFEST_TYPES[mediaType as keyof typeof MANIFEST_TYPES];
  const digestOf = (d: Descriptor | undefined) => (d && typeof d.digest === "string" && DIGEST.test(d.digest) ? d.digest : null);
  if (kind === "image") {
    const config = digestOf(doc.config);
    const layers = Array.isArray(doc.layers) ? doc.layers : null;
    if (!config || !layers) return null;
    // Foreign layers (with `urls`) live elsewhere: the registry does not hold them.
    const local = layers.filter((l) => !Array.isArray(l?.urls));
    if (local.some((l) => !digestOf(l))) return null;
    const totalSize = [doc.config!, ...layers].reduce((sum, d) => sum + (typeof d.size === "number" ? d.size : 0), 0);
    return { mediaType, blobs: [config, ...local.map((l) => digestOf(l)!)], manifests: [] as string[], totalSize, configDigest: config };
  }
  if (kind === "index") {
    const entries = Array.isArray(doc.manifests) ? doc.manifests : null;
    if (!entries || entries.some((m) => !digestOf(m))) return null;
    return { mediaType, blobs: [] as string[], manifests: entries.map((m) => digestOf(m)!), totalSize: 0, configDigest: null };
  }
  return null;
}

const sha256Digest = async (bytes: Uint8Array) =>
  `sha256:${[...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/** PUT /v2/<name>/manifests/<reference>: stores the manifest once every blob and manifest it references is in the repository. */
distributionRoutes.put("/v2/:name{.+}/manifests/:reference", async (c) => {
  const at = await authorizeImage(c, "push");
  const reference = c.req.param("reference")!;
  const byDigest = reference.includes(":");
  if (!byDigest && !TAG.test(reference)) throw registryError(400, "TAG_INVALID", { tag: reference });
  if (Number(c.req.header("content-length") ?? 0) > MAX_MANIFEST_BYTES) throw registryError(400, "MANIFEST_INVALID", { reason: "manifest too large" });
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > MAX_MANIFEST_BYTES) throw registryError(400, "MANIFEST_INVALID", { reason: "manifest too large" });
  const digest = await sha256Digest(bytes);
  if (byDigest && reference !== digest) throw registryError(400, "DIGEST_INVALID", { digest: reference });
  let payload: string;
  try {
    payload = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw registryError(400, "MANIFEST_INVALID");
  }
  const parsed = parseManifest(payload, c.req.header("content-type") ?? "");
  if (!parsed) throw registryError(400, "MANIFEST_INVALID");
  const { missing } = await q.putManifest(c.var.db(), at.project.id, at.name, { digest, payload, ...parsed }, byDigest ? null : reference);
  if (missing) throw registryError(400, "MANIFEST_BLOB_UNKNOWN", { digest: missing });
  return c.body(null, 201, { Location: `/v2/${at.image}/manifests/${digest}`, "Docker-Content-Digest": digest, "Content-Length": "0" });
});

/** GET and HEAD /v2/<name>/manifests/<reference>: by tag or digest, as pushed, with its media type. */
distributionRoutes.get("/v2/:name{.+}/manifests/:reference", async (c) => {
  const at = await authorizeImage(c, "pull");
  const manifest = await q.findManifest(c.var.db(), at.project.id, at.name, c.req.param("reference")!);
  if (!manifest) throw registryError(404, "MANIFEST_UNKNOWN", { reference: c.req.param("reference") });
  const length = new TextEncoder().encode(manifest.payload).byteLength;
  const headers = { "Content-Type": manifest.mediaType, "Docker-Content-Digest": manifest.digest, ETag: `"${manifest.digest}"`, "Content-Length": String(length) };
  return c.req.method === "HEAD" ? c.body(null, 200, headers) : c.body(manifest.payload, 200, headers);
});

/** DELETE /v2/<name>/manifests/<reference>: a digest deletes the manifest and its tags, a tag only the tag (202). */
distributionRoutes.delete("/v2/:name{.+}/manifests/:reference", async (c) => {
  const at = await authorizeImage(c, "delete");
  const repo = await q.findRepository(c.var.db(), at.project.id, at.name);
  if (!repo || !(await q.deleteManifest(c.var.db(), repo.id, c.req.param("reference")!))) throw registryError(404, "MANIFEST_UNKNOWN", { reference: c.req.param("reference") });
  return c.body(null, 202, { "Content-Length": "0" });
});

/** GET /v2/<name>/tags/list: tags in lexical order, `n` at a time after `last`, with a `Link` to the next page. */
distributionRoutes.get("/v2/:name{.+}/tags/list", { params: Query }, async (c) => {
  const at = await authorizeImage(c, "pull");
  const params = query(c);
  const repo = await q.findRepository(c.var.db(), at.project.id, at.name);
  if (!repo) throw registryError(404, "NAME_UNKNOWN", { name: at.image });
  const n = pageSize(params.n);
  const names = n === 0 ? [] : await q.tagNames(c.var.db(), repo.id, n, params.last ?? null);
  const page = names.slice(0, n);
  if (names.length > n) c.header("Link", `</v2/${at.image}/tags/list?n=${n}&last=${encodeURIComponent(page[page.length - 1])}>; rel="next"`);
  return c.json(tagList(at.image, page));
});
