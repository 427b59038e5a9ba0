// End to end for the directory and remote imports (docs/directory_and_imports.md). Starts a real OpenLDAP
// server (test/e2e/slapd.mjs), a plain HTTP file server and a small S3-compatible server that checks every
// request's SigV4 signature with the `aws4` package, then Edgeforge as `npm start` does with `LDAP_SERVERS`
// and `IMPORT_S3_ENDPOINT` pointing at them:
// - LDAP: `GET /ldap/groups` searches the directory; links by cn (groupOfNames and posixGroup) and by filter
//   become memberships on `POST /groups/:id/ldap_sync`; a change in the directory follows; memberships
//   made by hand stay.
// - SAML: a user with a `saml` identity and `saml_groups` gets the linked groups' access.
// - Remote imports: a project exported through the API is imported back from the HTTP server and from the
//   S3 server; the outbound guard refuses local addresses until the setting allows them.
// Skips (and says why) without slapd and ldap-utils. E2E_DATABASE_URL uses that Postgres; E2E_VERBOSE=1
// shows the server's output.
import aws4 from "aws4";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { apiCall, startServer } from "./server.mjs";
import { ADMIN_DN, ADMIN_PASSWORD, available, ldapTool, person, startSlapd, SUFFIX } from "./slapd.mjs";

const ROOT_TOKEN = `glpat-dir${randomBytes(12).toString("hex")}`;
const RUN = `dir${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const CREDENTIALS = { accessKeyId: "AKIDEDGEFORGETEST", secretAccessKey: "s3-secret-for-the-test" };
const BUCKET = "exports";
const REGION = "eu-west-1";
const skip = available() ? false : "slapd and ldap-utils are not installed (.ci/run installs them)";

let dataDir;
let slapd;
let server;
let files;
let s3;
/** Bytes served by the file and S3 servers, by path. */
const served = new Map();
/** Every request the S3 server received: method, path, whether its signature verified. */
const s3Requests = [];

const api = (method, route, body, token = ROOT_TOKEN) => apiCall(server.apiUrl.replace(/\/api\/v4$/, ""), token, method, route, body);
async function ok(method, route, body, token) {
  const res = await api(method, route, body, token);
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${route} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Waits until `check()` resolves truthy, polling every 100 ms, for at most `ms`. */
async function eventually(check, ms = 15_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the condition did not hold in time (last: ${JSON.stringify(last)})`);
}

function listen(handler) {
  return new Promise((resolve) => {
    const s = http.createServer(handler);
    s.listen(0, "127.0.0.1", () => resolve({ server: s, url: `http://127.0.0.1:${s.address().port}` }));
  });
}

/** SigV4 checked with aws4: the same request signed again must give the same signature. */
function verified(req) {
  const url = new URL(req.url, `http://${req.headers.host}`);
  if (url.searchParams.has("X-Amz-Signature")) {
    const given = url.searchParams.get("X-Amz-Signature");
    url.searchParams.delete("X-Amz-Signature");
    const expected = aws4.sign({ service: "s3", region: REGION, method: req.method, host: req.headers.host, path: `${url.pathname}${url.search}`, signQuery: true }, CREDENTIALS);
    return new URL(expected.path, "http://x").searchParams.get("X-Amz-Signature") === given;
  }
  const authorization = req.headers.authorization ?? "";
  const expected = aws4.sign(
    {
      service: "s3",
      region: REGION,
      method: req.method,
      host: req.headers.host,
      path: req.url,
      headers: { "X-Amz-Date": req.headers["x-amz-date"], "X-Amz-Content-Sha256": req.headers["x-amz-content-sha256"] },
    },
    CREDENTIALS,
  );
  return authorization !== "" && expected.headers.Authorization === authorization;
}

before(async () => {
  if (skip) return;
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-directory-"));
  slapd = await startSlapd(path.join(dataDir, "slapd"));
  files = await listen((req, res) => {
    const body = served.get(req.url);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": req.url.endsWith(".html") ? "text/html" : "application/gzip", "Content-Length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  s3 = await listen((req, res) => {
    const good = verified(req);
    s3Requests.push({ method: req.method, path: new URL(req.url, "http://x").pathname, good });
    // As S3: a refused request still says it is S3.
    if (!good) return res.writeHead(403, { "Content-Type": "application/xml", Server: "AmazonS3", "x-amz-request-id": "test" }).end("<Error><Code>SignatureDoesNotMatch</Code></Error>");
    const body = served.get(new URL(req.url, "http://x").pathname);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "application/x-tar", "Content-Length": body.length, Server: "AmazonS3", "x-amz-request-id": "test" });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  const ldapServers = [
    {
      provider: "ldapmain",
      label: "LDAP",
      host: slapd.host,
      port: slapd.port,
      bind_dn: ADMIN_DN,
      password: ADMIN_PASSWORD,
      base: `ou=people,${SUFFIX}`,
      group_base: `ou=groups,${SUFFIX}`,
      uid: "uid",
    },
  ];
  server = await startServer({
    dataDir,
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    timeoutMs: 240_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
    env: { LDAP_SERVERS: JSON.stringify(ldapServers), IMPORT_S3_ENDPOINT: s3.url },
  });
});

after(async () => {
  if (server) await server.stop(10_000);
  if (slapd) await slapd.stop();
  files?.server.close();
  s3?.server.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const state = {};

/** The group's direct members as `username → access_level`. */
async function membersOf(groupId) {
  const list = await ok("GET", `/groups/${groupId}/members?per_page=100`);
  return Object.fromEntries(list.map((m) => [m.username.replace(`${RUN}-`, ""), m.access_level]));
}

describe("LDAP group links synced from OpenLDAP", { skip, timeout: 120_000 }, () => {
  it("GET /ldap/groups searches the directory's groups by cn prefix", async () => {
    const dev = await ok("GET", "/ldap/groups?search=dev");
    assert.deepEqual(dev.map((g) => g.cn).sort(), ["developers", "devops"]);
    const all = await ok("GET", "/ldap/ldapmain/groups");
    assert.deepEqual(all.map((g) => g.cn).sort(), ["admins", "developers", "devops", "ops"]);
    assert.deepEqual(await ok("GET", "/ldap/groups?search=nothing"), []);
    // A search value is escaped: `*` is no wildcard of the caller's.
    assert.deepEqual(await ok("GET", `/ldap/groups?search=${encodeURIComponent("*)(cn=")}`), []);
    assert.equal((await api("GET", "/ldap/unknown/groups")).status, 404);
  });

  it("users with an ldapmain identity, a group with links by cn (groupOfNames, posixGroup) and by filter", async () => {
    state.users = {};
    for (const uid of ["alice", "bob", "carol", "dave", "eve"]) {
      const user = await ok("POST", "/users", {
        email: `${RUN}-${uid}@example.org`,
        username: `${RUN}-${uid}`,
        name: uid,
        password: `Pw-${randomBytes(8).toString("hex")}`,
        skip_confirmation: true,
        ...(uid === "eve" ? {} : { provider: "ldapmain", extern_uid: person(uid).toUpperCase().replace(/,/g, ", ") }),
      });
      state.users[uid] = user;
    }
    const group = await ok("POST", "/groups", { name: RUN, path: RUN });
    state.group = group;
    // eve is a member by hand: the sync never touches her.
    await ok("POST", `/groups/${group.id}/members`, { user_id: state.users.eve.id, access_level: 30 });
    const none = await api("GET", `/groups/${group.id}/ldap_group_links`);
    assert.deepEqual(none, { status: 404, body: { message: "No linked LDAP groups found" } });
    const created = await ok("POST", `/groups/${group.id}/ldap_group_links`, { cn: "developers", group_access: 30, provider: "ldapmain" });
    assert.deepEqual(created, { cn: "developers", group_access: 30, provider: "ldapmain", filter: null });
    await ok("POST", `/groups/${group.id}/ldap_group_links`, { filter: "(employeeType=contractor)", group_access: 20, provider: "ldapmain" });
    await ok("POST", `/groups/${group.id}/ldap_group_links`, { cn: "ops", group_access: 40, provider: "ldapmain" });
    const duplicate = await api("POST", `/groups/${group.id}/ldap_group_links`, { cn: "developers", group_access: 10, provider: "ldapmain" });
    assert.deepEqual(duplicate, { status: 409, body: { message: "Cn has already been taken" } });
    assert.equal((await ok("GET", `/groups/${group.id}/ldap_group_links`)).length, 3);
  });

  it("POST /groups/:id/ldap_sync answers 202 and the memberships follow the directory (highest link wins)", async () => {
    const res = await api("POST", `/groups/${state.group.id}/ldap_sync`);
    assert.deepEqual(res, { status: 202, body: { message: "202 Accepted" } });
    const expected = { root: 50, alice: 30, bob: 30, carol: 20, dave: 40, eve: 30 };
    await eventually(async () => {
      const members = await membersOf(state.group.id);
      return JSON.stringify(Object.keys(members).sort().map((k) => [k, members[k]])) === JSON.stringify(Object.keys(expected).sort().map((k) => [k, expected[k]])) && members;
    });
  });

  it("a second sync removes those who left the directory group or whose link went, keeps hand-made memberships", async () => {
    ldapTool(slapd.url, "ldapmodify", `dn: cn=developers,ou=groups,${SUFFIX}\nchangetype: modify\ndelete: member\nmember: ${person("bob")}\n`);
    const gone = await api("DELETE", `/groups/${state.group.id}/ldap_group_links?provider=ldapmain&filter=${encodeURIComponent("(employeeType=contractor)")}`);
    assert.equal(gone.status, 204);
    // Nothing has synced since the directory changed: bob is still a member.
    assert.equal((await membersOf(state.group.id)).bob, 30);
    assert.equal((await api("POST", `/groups/${state.group.id}/ldap_sync`)).status, 202);
    await eventually(async () => {
      const members = await membersOf(state.group.id);
      return members.bob === undefined && members.carol === undefined && members.alice === 30 && members.dave === 40 && members.eve === 30 && members;
    });
  });

  it("only owners manage links and sync: a developer gets 403, anonymous 401", async () => {
    const token = await ok("POST", `/users/${state.users.alice.id}/personal_access_tokens`, { name: "t", scopes: ["api"] });
    const as = (method, route, body) => api(method, route, body, token.token);
    assert.equal((await as("POST", `/groups/${state.group.id}/ldap_sync`)).status, 403);
    assert.equal((await as("GET", `/groups/${state.group.id}/ldap_group_links`)).status, 403);
    assert.equal((await as("GET", "/ldap/groups")).status, 403);
    const anonymous = await fetch(`${server.apiUrl}/groups/${state.group.id}/ldap_sync`, { method: "POST" });
    assert.equal(anonymous.status, 401);
    const byCn = await api("DELETE", `/groups/${state.group.id}/ldap_group_links/ldapmain/ops`);
    assert.equal(byCn.status, 204);
    assert.deepEqual(await api("DELETE", `/groups/${state.group.id}/ldap_group_links/ops`), { status: 404, body: { message: "Linked LDAP group not found" } });
  });
});

describe("SAML group links for users provisioned with a SAML identity", { skip, timeout: 60_000 }, () => {
  it("a user's saml_groups give the linked access; a change of groups or links follows", async () => {
    const group = await ok("POST", "/groups", { name: `${RUN}-saml`, path: `${RUN}-saml` });
    assert.deepEqual(await ok("POST", `/groups/${group.id}/saml_group_links`, { saml_group_name: "engineers", access_level: 30 }), { name: "engineers", access_level: 30 });
    await ok("POST", `/groups/${group.id}/saml_group_links`, { saml_group_name: "leads", access_level: 40 });
    const user = await ok("POST", "/users", {
      email: `${RUN}-sam@example.org`,
      username: `${RUN}-sam`,
      name: "Sam",
      password: `Pw-${randomBytes(8).toString("hex")}`,
      skip_confirmation: true,
      provider: "saml",
      extern_uid: "sam@idp.example.org",
    });
    await ok("PUT", `/users/${user.id}/custom_attributes/saml_groups`, { value: "engineers, leads" });
    assert.equal((await membersOf(group.id)).sam, 40);
    await ok("PUT", `/users/${user.id}/custom_attributes/saml_groups`, { value: "engineers" });
    assert.equal((await membersOf(group.id)).sam, 30);
    await ok("DELETE", `/groups/${group.id}/saml_group_links/engineers`);
    assert.equal((await membersOf(group.id)).sam, undefined);
  });
});

describe("remote project imports", { skip, timeout: 120_000 }, () => {
  it("exports a project through the API (the archive the servers will serve)", async () => {
    const project = await ok("POST", "/projects", { name: `${RUN}-source`, initialize_with_readme: true, description: "exported" });
    await ok("POST", `/projects/${project.id}/issues`, { title: "carried over" });
    await ok("POST", `/projects/${project.id}/export`);
    await eventually(async () => (await ok("GET", `/projects/${project.id}/export`)).export_status === "finished", 30_000);
    const download = await fetch(`${server.apiUrl}/projects/${project.id}/export/download`, { headers: { "PRIVATE-TOKEN": ROOT_TOKEN } });
    assert.equal(download.status, 200);
    const archive = new Uint8Array(await download.arrayBuffer());
    served.set("/export.tar.gz", archive);
    served.set("/page.html", new TextEncoder().encode("<html></html>"));
    served.set(`/${BUCKET}/projects/export.tar.gz`, archive);
  });

  it("POST /projects/remote-import: refused for a local URL until local requests are allowed, then imported", async () => {
    const url = `${files.url}/export.tar.gz`;
    const blocked = await api("POST", "/projects/remote-import", { url, path: `${RUN}-remote` });
    assert.deepEqual(blocked, { status: 400, body: { message: "File url is blocked: Only allowed schemes are https" } });
    const https = await api("POST", "/projects/remote-import", { url: url.replace("http:", "https:"), path: `${RUN}-remote` });
    assert.deepEqual(https, { status: 400, body: { message: "File url is blocked: Requests to localhost are not allowed" } });
    await ok("PUT", "/application/settings", { allow_local_requests_from_web_hooks_and_services: true });
    const html = await api("POST", "/projects/remote-import", { url: `${files.url}/page.html`, path: `${RUN}-remote` });
    assert.deepEqual(html, { status: 400, body: { message: "Content type 'text/html' not allowed. (Allowed: application/gzip, application/x-tar, application/x-gzip)" } });
    const started = await api("POST", "/projects/remote-import", { url, path: `${RUN}-remote`, override_params: { description: "from a URL" } });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    assert.equal(started.body.import_status, "scheduled");
    const done = await eventually(async () => {
      const s = await ok("GET", `/projects/${started.body.id}/import`);
      return ["finished", "failed"].includes(s.import_status) && s;
    }, 30_000);
    assert.equal(done.import_status, "finished", JSON.stringify(done));
    const issues = await ok("GET", `/projects/${started.body.id}/issues`);
    assert.deepEqual(issues.map((i) => i.title), ["carried over"]);
    assert.equal((await ok("GET", `/projects/${started.body.id}`)).description, "from a URL");
  });

  it("POST /projects/remote-import-s3: signed HEAD and presigned GET (verified with aws4), then imported", async () => {
    const params = { region: REGION, bucket_name: BUCKET, file_key: "projects/export.tar.gz", access_key_id: CREDENTIALS.accessKeyId, secret_access_key: CREDENTIALS.secretAccessKey };
    const wrong = await api("POST", "/projects/remote-import-s3", { ...params, secret_access_key: "wrong", path: `${RUN}-s3` });
    assert.deepEqual(wrong, { status: 400, body: { message: "Failed to open 'projects/export.tar.gz' in 'exports': Aws::S3::Errors::Forbidden" } });
    const missing = await api("POST", "/projects/remote-import-s3", { ...params, file_key: "nope.tar.gz", path: `${RUN}-s3` });
    assert.deepEqual(missing, { status: 400, body: { message: "File not found 'nope.tar.gz' in 'exports'" } });
    const blank = await api("POST", "/projects/remote-import-s3", { ...params, region: " ", path: `${RUN}-s3` });
    assert.deepEqual(blank, { status: 400, body: { message: "Region can't be blank" } });
    s3Requests.length = 0;
    const started = await api("POST", "/projects/remote-import-s3", { ...params, path: `${RUN}-s3`, name: "From S3" });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const done = await eventually(async () => {
      const s = await ok("GET", `/projects/${started.body.id}/import`);
      return ["finished", "failed"].includes(s.import_status) && s;
    }, 30_000);
    assert.equal(done.import_status, "finished", JSON.stringify(done));
    assert.deepEqual(
      s3Requests.map((r) => [r.method, r.path, r.good]),
      [
        ["HEAD", `/${BUCKET}/projects/export.tar.gz`, true],
        ["GET", `/${BUCKET}/projects/export.tar.gz`, true],
      ],
    );
    assert.equal((await ok("GET", `/projects/${started.body.id}`)).name, "From S3");
    // The plain URL of an S3 answer is sent to the S3 endpoint (RemoteFile#aws_s3).
    const viaUrl = await api("POST", "/projects/remote-import", { url: `${s3.url}/${BUCKET}/projects/export.tar.gz`, path: `${RUN}-s3-url` });
    assert.deepEqual(viaUrl, { status: 400, body: { message: "To import from AWS S3 use `projects/remote-import-s3`" } });
  });
});
