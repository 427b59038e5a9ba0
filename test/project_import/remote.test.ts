import { describe, expect, it } from "vitest";
import { objectUrl, presignedGet, signedHead } from "../../functions/project_import/s3";
import { statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

// The parameter and URL checks of the remote imports. The downloads themselves (a local HTTP server, a
// local S3-compatible server that verifies the signatures with aws4) are test/e2e/directory_and_imports.test.mjs.

describe("POST /projects/remote-import", () => {
  it("answers Grape's 400 for missing parameters and GitLab's for a URL that is not https", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import", { json: { path: "x" } }))).toEqual([400, { error: "url is missing" }]);
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import", { json: { url: "https://example.com/a.tar.gz" } }))).toEqual([400, { error: "path is missing" }]);
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import", { json: { url: "ftp://example.com/a.tar.gz", path: "x" } }))).toEqual([
      400,
      { message: "File url is blocked: Only allowed schemes are https" },
    ]);
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import", { json: { url: "not a url", path: "x" } }))).toEqual([
      400,
      { message: "File url is blocked: Only allowed schemes are https" },
    ]);
  });

  it("401 anonymous", async () => {
    const w = await world();
    expect((await w.anonymous.post("/projects/remote-import", { json: { url: "https://example.com/a.tar.gz", path: "x" } })).status).toBe(401);
  });
});

describe("POST /projects/remote-import-s3", () => {
  it("answers Grape's 400 for missing parameters and `Region can't be blank` for a blank one", async () => {
    const w = await world();
    const user = await w.user();
    const params = { region: "eu-west-1", bucket_name: "b", file_key: "k.tar.gz", access_key_id: "id", secret_access_key: "secret", path: "x" };
    const { secret_access_key: _, ...withoutSecret } = params;
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import-s3", { json: withoutSecret }))).toEqual([400, { error: "secret_access_key is missing" }]);
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import-s3", { json: { ...params, bucket_name: "  " } }))).toEqual([400, { message: "Bucket name can't be blank" }]);
    expect(await statusAndBody(await w.as(user).post("/projects/remote-import-s3", { json: { ...params, bucket_name: "Not A Bucket" } }))).toEqual([
      400,
      { message: "Failed to open 'k.tar.gz' in 'Not A Bucket': Invalid bucket name" },
    ]);
    expect((await w.anonymous.post("/projects/remote-import-s3", { json: params })).status).toBe(401);
  });
});

describe("SigV4 (project_import/s3.ts)", () => {
  // The signature itself is verified by an independent signer (aws4) in the end-to-end test.
  it("presigns a GET on AWS's virtual-hosted endpoint with the credential scope and a 28-hour expiry", async () => {
    const object = { region: "us-east-1", bucket: "examplebucket", key: "test.txt", accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
    const url = new URL(await presignedGet(object, new Date("2013-05-24T00:00:00Z")));
    expect(url.host).toBe("examplebucket.s3.us-east-1.amazonaws.com");
    expect(url.searchParams.get("X-Amz-Credential")).toBe("AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request");
    expect(url.searchParams.get("X-Amz-Date")).toBe("20130524T000000Z");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("100800");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("addresses an IMPORT_S3_ENDPOINT path-style and signs the HEAD in the Authorization header", async () => {
    const object = { region: "eu-west-1", bucket: "my bucket", key: "dir/a b.tar.gz", accessKeyId: "id", secretAccessKey: "secret" };
    expect(objectUrl(object, "http://127.0.0.1:9000/").toString()).toBe("http://127.0.0.1:9000/my%20bucket/dir/a%20b.tar.gz");
    const head = await signedHead(object, new Date("2024-01-02T03:04:05Z"), "http://127.0.0.1:9000");
    expect(head.method).toBe("HEAD");
    expect(head.headers.get("x-amz-date")).toBe("20240102T030405Z");
    expect(head.headers.get("authorization")).toMatch(/^AWS4-HMAC-SHA256 Credential=id\/20240102\/eu-west-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  });
});
