// The cron ticker of `npm start` (docs/architecture.md, "Running locally"): local workerd never fires `[triggers] crons`,
// so this calls `/cdn-cgi/handler/scheduled?cron=<expr>` on the front (scripts/worker-host.mjs, which runs the
// Worker's scheduled handler through Miniflare's dispatch) when each expression of wrangler.toml is due, in
// UTC, as Cloudflare does.
import { readFileSync } from "node:fs";
import { Cron } from "croner";

/** The expressions of `[triggers] crons` in wrangler.toml. */
export function cronsOf(wranglerToml) {
  const text = readFileSync(wranglerToml, "utf8");
  const match = /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(text);
  if (!match) return [];
  return [...match[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/**
 * Schedules every expression; each tick calls the Worker's scheduled handler through Miniflare.
 * `protect` skips a tick while the previous run of the same expression is still answering.
 * @returns {{ stop(): void, jobs: Cron[] }}
 */
export function startCronTicker({ baseUrl, crons, log = console.log }) {
  const jobs = crons.map(
    (expr) =>
      new Cron(expr, { timezone: "UTC", protect: true }, async (job) => {
        const time = (job.currentRun() ?? new Date()).getTime();
        const url = `${baseUrl}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(expr)}&time=${time}`;
        try {
          const res = await fetch(url);
          await res.arrayBuffer();
          if (!res.ok) log(`cron ${expr}: scheduled handler answered ${res.status}`);
        } catch (error) {
          log(`cron ${expr}: ${error.message}`);
        }
      }),
  );
  return { jobs, stop: () => jobs.forEach((job) => job.stop()) };
}
