import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { bundledWorkerOptions } from "../scripts/worker-host.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The Worker under test is the deployable bundle (`wrangler deploy --dry-run`, built by
 * test/global-setup.ts), loaded natively by workerd as an auxiliary Worker named "edgeforge" with
 * wrangler.toml's bindings: its Durable Objects, queue consumers and crons run as in production.
 * Tests reach it through the `EDGEFORGE` service binding (test/helpers/client.ts).
 *
 * Why not `main: functions/index.ts`: vitest-pool-workers imports `main` through Vite's module
 * runner in every test file (370 modules, about 3.7 s a file, 480 s of a full run); workerd loads
 * the bundle in about 50 ms. Test files that unit-test modules still import them from source.
 */
export default defineConfig({
  root,
  plugins: [
    cloudflareTest(({ inject }) => {
      const vars = {
        DATABASE_URL: inject("databaseUrl"),
        WS_PROXY: inject("wsProxy"),
        PG_TCP_PROXY: inject("tcpProxy"),
        ROOT_TOKEN: inject("rootToken"),
        QUERY_COUNT_HEADER: "1",
        // The OpenAPI contract test (test/helpers/contract.ts) validates each response against its route's schema.
        ROUTE_HEADER: "1",
        // A test that meets a 503 because the machine is busy says nothing; the 1.8 s bound itself is
        // tested by test/node/db-unavailable.test.mjs against `npm start`.
        DB_CONNECT_TIMEOUT_MS: "15000",
        // `npm run fuzz` (test/hardening/fuzz.test.ts): a larger run than CI's.
        FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
        FUZZ_SEED: process.env.FUZZ_SEED ?? "",
        FUZZ_TRACE: process.env.FUZZ_TRACE ?? "",
        FUZZ_CI_RUNS: process.env.FUZZ_CI_RUNS ?? "",
        FUZZ_SWEEP: process.env.FUZZ_SWEEP ?? "",
        // The fuzz test reads the Worker's parameter registry (GET /-/fuzz-registry, administrators).
        FUZZ_REGISTRY: "1",
        // `npm run matrix` (test/hardening/authorization_matrix_resources.test.ts): every cell.
        MATRIX_FULL: process.env.MATRIX_FULL ?? "",
        // The public half of test/license/fixtures.ts (a key made for tests only).
        LICENSE_PUBLIC_KEY: "Na2bJTkxlPTUHXYmHnBvOqpn6nY3lXeLOnPtiQTvX3Y=",
      };
      const app = bundledWorkerOptions(inject("workerBundle"), vars);
      return {
        miniflare: {
          compatibilityDate: app.compatibilityDate,
          compatibilityFlags: app.compatibilityFlags,
          // The test side sees the same bindings as the Worker, so that tests which call a module
          // from source (a queue consumer, the scheduled handler) run it against the same state.
          bindings: vars,
          r2Buckets: app.r2Buckets,
          queueProducers: app.queueProducers,
          durableObjects: { PIPELINES: { className: "PipelineCoordinator", scriptName: "edgeforge" } },
          serviceBindings: { EDGEFORGE: "edgeforge" },
          workers: [app],
        },
      };
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    // One workerd for the whole run: the Worker (above) is loaded once, and each test file re-imports
    // only its own helpers. With `main: functions/index.ts` a shared isolate re-imported the whole app
    // per file and grew slower file by file (5-6x after 60 files); with the bundle it does not.
    isolate: false,
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
