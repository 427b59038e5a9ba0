// End to end for the PyPI registry: starts Edgeforge as `npm start` does, builds a tiny wheel and an
// sdist, uploads both with Debian's `twine` (personal access token as the Basic password), refuses a
// second upload of the same file, then `pip install --index-url` installs the package from the
// project's simple API (pip checks the `#sha256=` of the link) and `pip download` fetches the wheel
// through the group-level index. E2E_DATABASE_URL uses that Postgres; E2E_VERBOSE=1 shows the server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { startServer, requiredApiCall } from "./server.mjs";

const run = promisify(execFile);
const ROOT_TOKEN = `glpat-pypi${randomBytes(12).toString("hex")}`;
const RUN = `pypi${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 120_000 };
const PYTHON = "/usr/bin/python3";

let dataDir;
let work;
let server;
const state = {};

function api(method, route, body) {
  return requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);
}

/** A wheel and an sdist of `edge-hello` 0.1.0, written with the standard library only (no build backend). */
const BUILD = `
import base64, hashlib, io, os, sys, tarfile, zipfile
out = sys.argv[1]
meta = "Metadata-Version: 2.1\\nName: edge-hello\\nVersion: 0.1.0\\nSummary: hello\\nRequires-Python: >=3.7\\n\\n"
files = {
  "edge_hello/__init__.py": "GREETING = 'hello from edgeforge'\\n",
  "edge_hello-0.1.0.dist-info/METADATA": meta,
  "edge_hello-0.1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: e2e\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
with zipfile.ZipFile(os.path.join(out, "edge_hello-0.1.0-py3-none-any.whl"), "w") as whl:
  for name, text in files.items():
    data = text.encode()
    whl.writestr(name, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")
  record.append("edge_hello-0.1.0.dist-info/RECORD,,")
  whl.writestr("edge_hello-0.1.0.dist-info/RECORD", "\\n".join(record) + "\\n")
with tarfile.open(os.path.join(out, "edge-hello-0.1.0.tar.gz"), "w:gz") as sdist:
  for name, text in {"edge-hello-0.1.0/PKG-INFO": meta, "edge-hello-0.1.0/edge_hello/__init__.py": files["edge_hello/__init__.py"]}.items():
    info = tarfile.TarInfo(name)
    info.size = len(text.encode())
    sdist.addfile(info, io.BytesIO(text.encode()))
`;

const env = () => ({ PATH: process.env.PATH, HOME: work, PIP_NO_INPUT: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_CONFIG_FILE: "/dev/null", PYTHON_KEYRING_BACKEND: "keyring.backends.null.Keyring" });

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-pypi-"));
  work = await mkdtemp(path.join(os.tmpdir(), "edgeforge-pypi-work-"));
  server = await startServer({ dataDir, rootToken: ROOT_TOKEN, databaseUrl: process.env.E2E_DATABASE_URL || undefined, timeoutMs: 90_000, verbose: Boolean(process.env.E2E_VERBOSE) });
});

after(async () => {
  if (server) await server.stop(10_000);
  for (const dir of [dataDir, work]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("twine and pip against a project's PyPI registry", { timeout: 400_000 }, () => {
  it("uploads a wheel and an sdist with twine", STEP, async () => {
    const group = await api("POST", "/groups", { name: RUN, path: RUN });
    const project = await api("POST", "/projects", { name: RUN, namespace_id: group.id });
    Object.assign(state, { group, project });
    const dist = path.join(work, "dist");
    await run(PYTHON, ["-c", `import os; os.makedirs(${JSON.stringify(dist)})`]);
    await run(PYTHON, ["-c", BUILD, dist]);
    const repository = `${server.apiUrl}/projects/${project.id}/packages/pypi`;
    const files = (await readdir(dist)).map((f) => path.join(dist, f));
    await run("twine", ["upload", "--non-interactive", "--disable-progress-bar", "--repository-url", repository, "-u", "__token__", "-p", ROOT_TOKEN, ...files], { env: env(), timeout: 60_000 });
    const packages = await api("GET", `/projects/${project.id}/packages?package_type=pypi`);
    assert.deepEqual(packages.map((p) => [p.name, p.version]), [["edge-hello", "0.1.0"]]);
    const pkgFiles = await api("GET", `/projects/${project.id}/packages/${packages[0].id}/package_files`);
    assert.deepEqual(pkgFiles.map((f) => f.file_name).sort(), ["edge-hello-0.1.0.tar.gz", "edge_hello-0.1.0-py3-none-any.whl"]);
    state.files = files;
  });

  it("refuses the same file again (twine reports the 400)", STEP, async () => {
    const repository = `${server.apiUrl}/projects/${state.project.id}/packages/pypi`;
    await assert.rejects(
      run("twine", ["upload", "--non-interactive", "--disable-progress-bar", "--repository-url", repository, "-u", "__token__", "-p", ROOT_TOKEN, state.files[0]], { env: env(), timeout: 60_000 }),
      (error) => /400/.test(String(error.stdout) + String(error.stderr)),
    );
  });

  it("installs the wheel with pip install --index-url", STEP, async () => {
    const index = `${server.apiUrl.replace("://", `://__token__:${ROOT_TOKEN}@`)}/projects/${state.project.id}/packages/pypi/simple`;
    const target = path.join(work, "site");
    await run(PYTHON, ["-m", "pip", "install", "--no-cache-dir", "--index-url", index, "--target", target, "edge-hello==0.1.0"], { env: env(), timeout: 90_000 });
    const installed = await readFile(path.join(target, "edge_hello", "__init__.py"), "utf8");
    assert.match(installed, /hello from edgeforge/);
  });

  it("downloads the wheel through the group's index with pip download", STEP, async () => {
    const index = `${server.apiUrl.replace("://", `://__token__:${ROOT_TOKEN}@`)}/groups/${state.group.id}/-/packages/pypi/simple`;
    const dest = path.join(work, "downloads");
    await run(PYTHON, ["-m", "pip", "download", "--no-cache-dir", "--no-deps", "--only-binary", ":all:", "--index-url", index, "-d", dest, "edge-hello"], { env: env(), timeout: 90_000 });
    assert.deepEqual(await readdir(dest), ["edge_hello-0.1.0-py3-none-any.whl"]);
  });
});
