import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./functions/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          DATABASE_URL: inject("databaseUrl"),
          WS_PROXY: inject("wsProxy"),
          ROOT_TOKEN: inject("rootToken"),
          QUERY_COUNT_HEADER: "1",
          // `npm run fuzz` (test/hardening/fuzz.test.ts): a larger run than CI's.
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
          FUZZ_SEED: process.env.FUZZ_SEED ?? "",
          FUZZ_TRACE: process.env.FUZZ_TRACE ?? "",
          FUZZ_CI_RUNS: process.env.FUZZ_CI_RUNS ?? "",
          // `npm run matrix` (test/hardening/authorization_matrix_resources.test.ts): every cell.
          MATRIX_FULL: process.env.MATRIX_FULL ?? "",
          // The public half of test/license/fixtures.ts (a key made for tests only).
          LICENSE_PUBLIC_KEY: "Na2bJTkxlPTUHXYmHnBvOqpn6nY3lXeLOnPtiQTvX3Y=",
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
