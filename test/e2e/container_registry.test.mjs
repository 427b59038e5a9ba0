// End to end for the container registry: starts Edgeforge as `npm start` does, builds a tiny OCI
// image layout (one tar layer, its config, the manifest and index.json), and drives Debian's
// `skopeo` against `/v2/` over plain HTTP with a personal access token: `skopeo copy` pushes the image
// (token from /jwt/auth, chunked blob uploads, manifest by tag), copies it to a second image of the
// project (a cross-repository mount), `skopeo inspect` and `skopeo list-tags` read it, and `skopeo
// copy` brings it back into an OCI layout whose layer unpacks to the tar pushed. A stranger's
// token reads nothing. Project deploy tokens: `read_registry` pulls and may not push, `read_registry` with
// `write_registry` pushes. A CI job on the shipped runner (scripts/runner) builds an OCI layout with
// printf/tar/sha256sum and pushes it with skopeo as `$CI_REGISTRY_USER:$CI_REGISTRY_PASSWORD` to
// `$CI_REGISTRY_IMAGE`; the REST API then lists the tag. E2E_DATABASE_URL uses that Postgres;
// E2E_VERBOSE=1 shows the server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { runRunner } from "../../scripts/runner/runner.mjs";
import { startServer, requiredApiCall } from "./server.mjs";

const run = promisify(execFile);
const ROOT_TOKEN = `glpat-oci${randomBytes(12).toString("hex")}`;
const RUN = `oci${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 120_000 };

let dataDir;
let work;
let server;
const state = {};

function api(method, route, body) {
  return requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);
}

function skopeo(args) {
  const env = { PATH: process.env.PATH, HOME: work, XDG_RUNTIME_DIR: work, REGISTRY_AUTH_FILE: path.join(work, "auth.json") };
  return run("skopeo", ["--insecure-policy", ...args], { env, timeout: 100_000 });
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** An OCI image layout at `dir` with the image tagged `v1`; returns the layer's digest and bytes. */
async function buildLayout(dir) {
  const files = path.join(work, "rootfs");
  await mkdir(files, { recursive: true });
  await writeFile(path.join(files, "hello.txt"), `hello from ${RUN}\n`);
  // A random file makes the layer large enough to travel in more than one upload part.
  await writeFile(path.join(files, "noise.bin"), randomBytes(9 * 1024 * 1024));
  await run("tar", ["-cf", path.join(work, "layer.tar"), "-C", files, "hello.txt", "noise.bin"]);
  const layer = await readFile(path.join(work, "layer.tar"));
  const config = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", config: {}, rootfs: { type: "layers", diff_ids: [`sha256:${sha256(layer)}`] } }));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: `sha256:${sha256(config)}`, size: config.length },
      layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: `sha256:${sha256(layer)}`, size: layer.length }],
    }),
  );
  await mkdir(path.join(dir, "blobs", "sha256"), { recursive: true });
  for (const blob of [layer, config, manifest]) await writeFile(path.join(dir, "blobs", "sha256", sha256(blob)), blob);
  await writeFile(path.join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  await writeFile(
    path.join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", digest: `sha256:${sha256(manifest)}`, size: manifest.length, annotations: { "org.opencontainers.image.ref.name": "v1" } }],
    }),
  );
  return { layer, layerDigest: `sha256:${sha256(layer)}`, manifestDigest: `sha256:${sha256(manifest)}` };
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-oci-"));
  work = await mkdtemp(path.join(os.tmpdir(), "edgeforge-oci-work-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 90_000, verbose: Boolean(process.env.E2E_VERBOSE) });
  state.host = new URL(server.apiUrl).host;
});

after(async () => {
  if (server) await server.stop(10_000);
  for (const dir of [dataDir, work]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("skopeo against the container registry", { timeout: 600_000 }, () => {
  it("pushes an OCI image with skopeo copy and a personal access token", STEP, async () => {
    const group = await api("POST", "/groups", { name: RUN, path: RUN });
    const project = await api("POST", "/projects", { name: "app", path: "app", namespace_id: group.id });
    state.project = project;
    state.image = `${state.host}/${project.path_with_namespace}`;
    const layout = path.join(work, "layout");
    Object.assign(state, await buildLayout(layout));
    await skopeo(["copy", "--dest-tls-verify=false", "--dest-creds", `root:${ROOT_TOKEN}`, `oci:${layout}:v1`, `docker://${state.image}:v1`]);
  });

  it("copies it to another image of the project (the layer is mounted, not uploaded again)", STEP, async () => {
    await skopeo(["copy", "--src-tls-verify=false", "--dest-tls-verify=false", "--src-creds", `root:${ROOT_TOKEN}`, "--dest-creds", `root:${ROOT_TOKEN}`, `docker://${state.image}:v1`, `docker://${state.image}/tools:stable`]);
  });

  it("reads it back with skopeo inspect and skopeo list-tags", STEP, async () => {
    const { stdout } = await skopeo(["inspect", "--tls-verify=false", "--creds", `root:${ROOT_TOKEN}`, `docker://${state.image}:v1`]);
    const inspected = JSON.parse(stdout);
    // skopeo compresses the tar layer on its way to a registry, so the pushed digests are new.
    assert.match(inspected.Digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(inspected.Layers.length, 1);
    state.pushed = inspected;
    const tags = JSON.parse((await skopeo(["list-tags", "--tls-verify=false", "--creds", `root:${ROOT_TOKEN}`, `docker://${state.image}/tools`])).stdout);
    assert.deepEqual(tags.Tags, ["stable"]);
  });

  it("copies it back into an OCI layout, the layer unpacking to the tar pushed", STEP, async () => {
    const back = path.join(work, "back");
    await skopeo(["copy", "--src-tls-verify=false", "--src-creds", `root:${ROOT_TOKEN}`, `docker://${state.image}/tools:stable`, `oci:${back}:copy`]);
    const blob = (digest) => readFile(path.join(back, "blobs", "sha256", digest.slice("sha256:".length)));
    const index = JSON.parse(await readFile(path.join(back, "index.json"), "utf8"));
    assert.equal(index.manifests[0].digest, state.pushed.Digest);
    const manifest = JSON.parse(await blob(state.pushed.Digest));
    assert.deepEqual(manifest.layers.map((l) => l.digest), state.pushed.Layers);
    const layer = await blob(manifest.layers[0].digest);
    assert.ok(gunzipSync(layer).equals(state.layer));
  });

  it("shows a stranger nothing", STEP, async () => {
    const stranger = await api("POST", "/users", { email: `${RUN}@example.com`, username: `${RUN}x`, name: "Stranger", password: `Pw-${randomBytes(8).toString("hex")}` });
    const token = await api("POST", `/users/${stranger.id}/personal_access_tokens`, { name: "registry", scopes: ["read_registry"] });
    await assert.rejects(skopeo(["inspect", "--tls-verify=false", "--creds", `${stranger.username}:${token.token}`, `docker://${state.image}:v1`]), (error) =>
      /unauthorized|denied|authentication required/i.test(String(error.stderr)),
    );
  });

  it("takes deploy tokens: read_registry pulls but may not push, read_registry with write_registry pushes", STEP, async () => {
    const reader = await api("POST", `/projects/${state.project.id}/deploy_tokens`, { name: "puller", scopes: ["read_registry"] });
    const writer = await api("POST", `/projects/${state.project.id}/deploy_tokens`, { name: "pusher", scopes: ["read_registry", "write_registry"] });
    const { stdout } = await skopeo(["inspect", "--tls-verify=false", "--creds", `${reader.username}:${reader.token}`, `docker://${state.image}:v1`]);
    assert.equal(JSON.parse(stdout).Digest, state.pushed.Digest);
    const copy = (token, tag) =>
      skopeo(["copy", "--src-tls-verify=false", "--dest-tls-verify=false", "--src-creds", `root:${ROOT_TOKEN}`, "--dest-creds", `${token.username}:${token.token}`, `docker://${state.image}:v1`, `docker://${state.image}:${tag}`]);
    await assert.rejects(copy(reader, "refused"), (error) => /unauthorized|denied|authentication required/i.test(String(error.stderr)));
    await copy(writer, "deployed");
    const tags = JSON.parse((await skopeo(["list-tags", "--tls-verify=false", "--creds", `${reader.username}:${reader.token}`, `docker://${state.image}`])).stdout);
    assert.deepEqual(tags.Tags, ["deployed", "v1"]);
  });

  it("lets a CI job on the shipped runner push with skopeo and its job token; the REST API lists the tag", { timeout: 240_000 }, async () => {
    const pid = state.project.id;
    await api("POST", `/projects/${pid}/repository/commits`, {
      branch: "main",
      commit_message: "CI [skip ci]",
      actions: [
        { action: "create", file_path: "build-image.sh", content: BUILD_IMAGE },
        { action: "create", file_path: ".gitlab-ci.yml", content: "push:\n  script: [bash build-image.sh]\n" },
      ],
    });
    const runner = await api("POST", "/user/runners", { runner_type: "project_type", project_id: pid, description: "registry e2e" });
    const pipeline = await api("POST", `/projects/${pid}/pipeline`, { ref: "main" });
    const env = { ...process.env, HOME: work, XDG_RUNTIME_DIR: work };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      await runRunner({ url: server.host, token: runner.token, once: true, buildsDir: path.join(work, "builds"), tags: [] }, () => undefined);
    } finally {
      for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
      Object.assign(process.env, saved);
    }
    const [job] = await api("GET", `/projects/${pid}/pipelines/${pipeline.id}/jobs`);
    if (job.status !== "success") console.error(await (await fetch(`${server.apiUrl}/projects/${pid}/jobs/${job.id}/trace`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } })).text());
    assert.equal(job.status, "success");
    const [repo] = await api("GET", `/projects/${pid}/registry/repositories?tags=true`);
    assert.ok(repo.tags.some((t) => t.name === `ci-${job.id}`), JSON.stringify(repo.tags));
  });
});

/** The CI job's script: an OCI image layout made with printf, tar and sha256sum, pushed with skopeo. */
const BUILD_IMAGE = `set -eu
mkdir -p layout/blobs/sha256 rootfs
printf 'built by job %s\\n' "$CI_JOB_ID" > rootfs/hello.txt
tar -cf layer.tar -C rootfs hello.txt
blob() { d=$(sha256sum "$1" | cut -d' ' -f1); cp "$1" "layout/blobs/sha256/$d"; echo "$d"; }
L=$(blob layer.tar); LS=$(stat -c %s layer.tar)
printf '{"architecture":"amd64","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$L" > config.json
C=$(blob config.json); CS=$(stat -c %s config.json)
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' "$C" "$CS" "$L" "$LS" > manifest.json
M=$(blob manifest.json); MS=$(stat -c %s manifest.json)
printf '{"imageLayoutVersion":"1.0.0"}' > layout/oci-layout
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"ci"}}]}' "$M" "$MS" > layout/index.json
skopeo --insecure-policy copy --dest-tls-verify=false --dest-creds "$CI_REGISTRY_USER:$CI_REGISTRY_PASSWORD" oci:layout:ci "docker://$CI_REGISTRY_IMAGE:ci-$CI_JOB_ID"
`;
