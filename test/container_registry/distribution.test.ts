import { describe, expect, it } from "vitest";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";
import { basic, bearer, call, digestOf, pushBlob, pushImage, registryToken } from "./support";

async function setup() {
  const w = await world();
  const dev = await w.user();
  const reporter = await w.user();
  const project = await w.project({ developers: [dev], reporters: [reporter] });
  const image = project.fullPath.toLowerCase();
  const push = await registryToken(basic(dev.token), `repository:${image}:pull,push,delete`, `repository:${image}/app:pull,push,delete`);
  const pull = await registryToken(basic(reporter.token), `repository:${image}:pull,push`);
  return { w, dev, reporter, project, image, push, pull };
}

describe("GET /v2/", () => {
  it("challenges without a token and answers {} with one", async () => {
    const res = await call("GET", "/v2/");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="http://edgeforge.test/jwt/auth",service="container_registry"');
    expect(res.headers.get("docker-distribution-api-version")).toBe("registry/2.0");
    const token = await registryToken({});
    expect(await statusAndBody(await call("GET", "/v2/", bearer(token)))).toEqual([200, {}]);
  });
});

describe("blobs", () => {
  it("uploads in chunks, verifies the digest, serves HEAD, GET and Range", async () => {
    const { image, push, pull } = await setup();
    const start = await call("POST", `/v2/${image}/blobs/uploads/`, bearer(push));
    expect(start.status).toBe(202);
    const uuid = start.headers.get("docker-upload-uuid")!;
    expect(start.headers.get("location")).toBe(`/v2/${image}/blobs/uploads/${uuid}`);
    const first = await call("PATCH", `/v2/${image}/blobs/uploads/${uuid}`, { ...bearer(push), "Content-Range": "0-5" }, "hello ");
    expect([first.status, first.headers.get("range")]).toEqual([202, "0-5"]);
    const wrongRange = await call("PATCH", `/v2/${image}/blobs/uploads/${uuid}`, { ...bearer(push), "Content-Range": "0-4" }, "world");
    expect(wrongRange.status).toBe(416);
    const second = await call("PATCH", `/v2/${image}/blobs/uploads/${uuid}`, { ...bearer(push), "Content-Range": "6-10" }, "world");
    expect(second.headers.get("range")).toBe("0-10");
    const digest = await digestOf("hello world!");
    const done = await call("PUT", `/v2/${image}/blobs/uploads/${uuid}?digest=${digest}`, bearer(push), "!");
    expect([done.status, done.headers.get("docker-content-digest"), done.headers.get("location")]).toEqual([201, digest, `/v2/${image}/blobs/${digest}`]);
    const head = await call("HEAD", `/v2/${image}/blobs/${digest}`, bearer(pull));
    expect([head.status, head.headers.get("content-length")]).toEqual([200, "12"]);
    expect(await (await call("GET", `/v2/${image}/blobs/${digest}`, bearer(pull))).text()).toBe("hello world!");
    const part = await call("GET", `/v2/${image}/blobs/${digest}`, { ...bearer(pull), Range: "bytes=6-10" });
    expect([part.status, part.headers.get("content-range"), await part.text()]).toEqual([206, "bytes 6-10/12", "world"]);
    // The session is gone.
    expect((await call("GET", `/v2/${image}/blobs/uploads/${uuid}`, bearer(push))).status).toBe(404);
  });

  it("refuses a wrong digest with DIGEST_INVALID and keeps nothing", async () => {
    const { image, push } = await setup();
    const claimed = await digestOf("something else");
    const res = await call("POST", `/v2/${image}/blobs/uploads/?digest=${claimed}`, bearer(push), "content");
    expect(await statusAndBody(res)).toEqual([400, { errors: [{ code: "DIGEST_INVALID", message: "provided digest did not match uploaded content", detail: { digest: claimed } }] }]);
    expect(await statusAndBody(await call("HEAD", `/v2/${image}/blobs/${claimed}`, bearer(push)))).toEqual([404, ""]);
    const get = await call("GET", `/v2/${image}/blobs/${claimed}`, bearer(push));
    expect(await statusAndBody(get)).toEqual([404, { errors: [{ code: "BLOB_UNKNOWN", message: "blob unknown to registry", detail: { digest: claimed } }] }]);
  });

  it("mounts a blob from another repository the token may pull", async () => {
    const { image, push } = await setup();
    const digest = await pushBlob(image, push, "shared layer");
    const res = await call("POST", `/v2/${image}/app/blobs/uploads/?mount=${digest}&from=${image}`, bearer(push));
    expect([res.status, res.headers.get("location")]).toEqual([201, `/v2/${image}/app/blobs/${digest}`]);
    expect(await (await call("GET", `/v2/${image}/app/blobs/${digest}`, bearer(push))).text()).toBe("shared layer");
  });

  it("needs a token granting the action: 401 with the scope to ask for", async () => {
    const { image, pull } = await setup();
    const res = await call("POST", `/v2/${image}/blobs/uploads/`, bearer(pull));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="http://edgeforge.test/jwt/auth",service="container_registry",scope="repository:${image}:pull,push",error="insufficient_scope"`);
    const none = await call("GET", `/v2/${image}/tags/list`);
    expect(none.status).toBe(401);
    const forged = await call("GET", `/v2/${image}/tags/list`, bearer(`${pull.slice(0, -4)}AAAA`));
    expect(forged.status).toBe(401);
  });
});

describe("manifests and tags", () => {
  it("stores a manifest by tag, serves it by tag and digest, lists and deletes tags", async () => {
    const { image, push, pull } = await setup();
    const pushed = await pushImage(image, push, "v1");
    await pushImage(image, push, "latest");
    const byTag = await call("GET", `/v2/${image}/manifests/v1`, { ...bearer(pull), Accept: "application/vnd.oci.image.manifest.v1+json" });
    expect([byTag.status, byTag.headers.get("content-type"), byTag.headers.get("docker-content-digest")]).toEqual([200, "application/vnd.oci.image.manifest.v1+json", pushed.digest]);
    expect(await byTag.text()).toBe(pushed.manifest);
    expect((await call("HEAD", `/v2/${image}/manifests/${pushed.digest}`, bearer(pull))).status).toBe(200);
    expect(await statusAndBody(await call("GET", `/v2/${image}/tags/list`, bearer(pull)))).toEqual([200, { name: image, tags: ["latest", "v1"] }]);
    const page = await call("GET", `/v2/${image}/tags/list?n=1`, bearer(pull));
    expect(page.headers.get("link")).toBe(`</v2/${image}/tags/list?n=1&last=latest>; rel="next"`);
    expect(await statusAndBody(await call("GET", `/v2/${image}/tags/list?n=1&last=latest`, bearer(pull)))).toEqual([200, { name: image, tags: ["v1"] }]);
    expect((await call("DELETE", `/v2/${image}/manifests/v1`, bearer(push))).status).toBe(202);
    expect(await statusAndBody(await call("GET", `/v2/${image}/tags/list`, bearer(pull)))).toEqual([200, { name: image, tags: ["latest"] }]);
    expect((await call("DELETE", `/v2/${image}/manifests/${pushed.digest}`, bearer(push))).status).toBe(202);
    expect(await statusAndBody(await call("GET", `/v2/${image}/manifests/latest`, bearer(pull)))).toEqual([404, { errors: [{ code: "MANIFEST_UNKNOWN", message: "manifest unknown", detail: { reference: "latest" } }] }]);
  });

  it("refuses manifests that reference unknown blobs, bad JSON and digest mismatches", async () => {
    const { image, push } = await setup();
    const missing = await digestOf("never pushed");
    const manifest = JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.docker.distribution.manifest.v2+json", config: { digest: missing, size: 1 }, layers: [] });
    const type = { ...bearer(push), "Content-Type": "application/vnd.docker.distribution.manifest.v2+json" };
    expect(await statusAndBody(await call("PUT", `/v2/${image}/manifests/v1`, type, manifest))).toEqual([
      400,
      { errors: [{ code: "MANIFEST_BLOB_UNKNOWN", message: "blob unknown to registry", detail: { digest: missing } }] },
    ]);
    expect((await statusAndBody(await call("PUT", `/v2/${image}/manifests/v1`, type, "{nope")))[1]).toMatchObject({ errors: [{ code: "MANIFEST_INVALID" }] });
    expect((await statusAndBody(await call("PUT", `/v2/${image}/manifests/${missing}`, type, manifest)))[1]).toMatchObject({ errors: [{ code: "DIGEST_INVALID" }] });
    expect((await statusAndBody(await call("PUT", `/v2/${image}/manifests/-bad`, type, manifest)))[1]).toMatchObject({ errors: [{ code: "TAG_INVALID" }] });
    // Nothing was created for the failed pushes.
    expect(await statusAndBody(await call("GET", `/v2/${image}/tags/list`, bearer(push)))).toEqual([404, { errors: [{ code: "NAME_UNKNOWN", message: "repository name not known to registry", detail: { name: image } }] }]);
  });

  it("stores an image index once its manifests are there", async () => {
    const { image, push, pull } = await setup();
    const one = await pushImage(image, push, "amd64");
    const index = JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", digest: one.digest, size: one.manifest.length }] });
    const res = await call("PUT", `/v2/${image}/manifests/multi`, { ...bearer(push), "Content-Type": "application/vnd.oci.image.index.v1+json" }, index);
    expect(res.status).toBe(201);
    const got = await call("GET", `/v2/${image}/manifests/multi`, bearer(pull));
    expect(got.headers.get("content-type")).toBe("application/vnd.oci.image.index.v1+json");
  });
});
