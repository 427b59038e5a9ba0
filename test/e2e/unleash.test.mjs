// End to end for feature flags: starts Edgeforge as `npm start` does, makes flags
// through the REST API, and reads them with the real `unleash-client` npm package, as an application
// would: `isEnabled` per strategy (a user list, user ids, percentage rollouts, environment scopes), then
// a flag flipped through the API is followed on the client's next poll. Registration and metrics go to
// the server too. E2E_DATABASE_URL uses that Postgres instead of PGlite; E2E_VERBOSE=1 shows the output.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { InMemStorageProvider, Unleash, UnleashEvents } from "unleash-client";
import { startServer, requiredApiCall } from "./server.mjs";

const ROOT_TOKEN = `glpat-ul${randomBytes(12).toString("hex")}`;
const RUN = `ul${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const STEP = { timeout: 30_000 };

let dataDir;
let server;
const clients = [];
const state = {};

/** One REST call as root; fails loudly with the server's answer. */
function api(method, route, body) {
  return requiredApiCall(server.apiUrl, ROOT_TOKEN, method, route, body);
}

/** A started Unleash client for `environment` that has read the flags once. */
async function unleashFor(environment, { refreshInterval = 300, metricsInterval = 0 } = {}) {
  const client = new Unleash({
    url: state.client.api_url,
    appName: environment,
    instanceId: state.client.instance_id,
    refreshInterval,
    metricsInterval,
    disableMetrics: metricsInterval === 0,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
  clients.push(client);
  client.on(UnleashEvents.Error, (e) => {
    state.lastError = e;
  });
  await once(client, UnleashEvents.Synchronized);
  return client;
}

/** Waits until `predicate()` holds, checking every 50 ms, for at most `ms`. */
async function eventually(predicate, ms = 5_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail("the condition did not hold in time");
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "edgeforge-unleash-"));
  server = await startServer({
    dataDir,
    rootToken: ROOT_TOKEN,
    databaseUrl: process.env.E2E_DATABASE_URL || undefined,
    timeoutMs: 90_000,
    verbose: Boolean(process.env.E2E_VERBOSE),
  });
});

after(async () => {
  for (const client of clients) client.destroy();
  // Let requests already in flight end before the server goes away.
  await new Promise((r) => setTimeout(r, 1_000));
  if (server) await server.stop(10_000);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("feature flags through unleash-client", { timeout: 170_000 }, () => {
  it("makes a project, a user list and one flag per strategy through the API", STEP, async () => {
    const project = await api("POST", "/projects", { name: RUN });
    state.project = project;
    const list = await api("POST", `/projects/${project.id}/feature_flags_user_lists`, { name: "beta", user_xids: "alice,bob" });
    const flag = (name, strategies, extra = {}) => api("POST", `/projects/${project.id}/feature_flags`, { name, version: "new_version_flag", strategies, ...extra });
    const everywhere = [{ environment_scope: "*" }];
    await flag("in_list", [{ name: "gitlabUserList", parameters: {}, user_list_id: list.id, scopes: everywhere }]);
    await flag("by_id", [{ name: "userWithId", parameters: { userIds: "carol" }, scopes: everywhere }]);
    await flag("half", [{ name: "flexibleRollout", parameters: { groupId: "half", rollout: "50", stickiness: "userId" }, scopes: everywhere }]);
    await flag("nobody", [{ name: "gradualRolloutUserId", parameters: { groupId: "nobody", percentage: "0" }, scopes: everywhere }]);
    await flag("everybody", [{ name: "gradualRolloutUserId", parameters: { groupId: "all", percentage: "100" }, scopes: everywhere }]);
    await flag("prod_only", [{ name: "default", parameters: {}, scopes: [{ environment_scope: "production" }] }]);
    await flag("reviews", [{ name: "default", parameters: {}, scopes: [{ environment_scope: "review/*" }] }]);
    await flag("flip_me", [{ name: "default", parameters: {}, scopes: everywhere }]);
    state.client = await api("GET", `/projects/${project.id}/feature_flags_client`);
    assert.equal(state.client.api_url, `${server.apiUrl}/feature_flags/unleash/${project.id}`);
  });

  it("evaluates each strategy as the client reads it", STEP, async () => {
    const prod = await unleashFor("production");
    state.prod = prod;
    assert.equal(prod.isEnabled("in_list", { userId: "alice" }), true);
    assert.equal(prod.isEnabled("in_list", { userId: "mallory" }), false);
    assert.equal(prod.isEnabled("by_id", { userId: "carol" }), true);
    assert.equal(prod.isEnabled("by_id", { userId: "alice" }), false);
    assert.equal(prod.isEnabled("nobody", { userId: "alice" }), false);
    assert.equal(prod.isEnabled("everybody", { userId: "alice" }), true);
    const users = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const enabled = users.filter((userId) => prod.isEnabled("half", { userId })).length;
    assert.ok(enabled > 140 && enabled < 260, `50% rollout enabled ${enabled} of 400`);
    // The same user always gets the same answer (stickiness on userId).
    assert.equal(prod.isEnabled("half", { userId: "user-1" }), prod.isEnabled("half", { userId: "user-1" }));
    assert.equal(prod.isEnabled("prod_only"), true);
    assert.equal(prod.isEnabled("reviews"), false);
  });

  it("scopes by environment through the app name", STEP, async () => {
    const review = await unleashFor("review/feature-42");
    assert.equal(review.isEnabled("reviews"), true);
    assert.equal(review.isEnabled("prod_only"), false);
    assert.equal(review.isEnabled("flip_me"), true);
  });

  it("follows a flag flipped through the API on the next poll", STEP, async () => {
    const prod = state.prod;
    assert.equal(prod.isEnabled("flip_me"), true);
    await api("PUT", `/projects/${state.project.id}/feature_flags/flip_me`, { active: false });
    await eventually(() => prod.isEnabled("flip_me") === false);
    await api("PUT", `/projects/${state.project.id}/feature_flags/flip_me`, { active: true });
    await eventually(() => prod.isEnabled("flip_me") === true);
  });

  it("registers and sends metrics without errors", STEP, async () => {
    const client = new Unleash({
      url: state.client.api_url,
      appName: "production",
      instanceId: state.client.instance_id,
      refreshInterval: 1_000,
      metricsInterval: 200,
      storageProvider: new InMemStorageProvider(),
      skipInstanceCountWarning: true,
    });
    clients.push(client);
    const registered = once(client, UnleashEvents.Registered);
    await once(client, UnleashEvents.Synchronized);
    await registered;
    client.isEnabled("flip_me");
    const [sent] = await once(client, UnleashEvents.Sent);
    assert.ok(sent.bucket.toggles.flip_me, "the metrics bucket carries the evaluated flag");
    assert.equal(state.lastError, undefined);
  });

  it("refuses a client with a wrong instance id", STEP, async () => {
    const res = await fetch(`${state.client.api_url}/client/features`, { headers: { "UNLEASH-INSTANCEID": "wrong", "UNLEASH-APPNAME": "production" } });
    assert.equal(res.status, 401);
  });
});
