import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ABANDONED_UPLOAD_MS, sweepAbandonedUploads } from "../../functions/container_registry/consumer";
import type { Bindings } from "../../functions/kernel/env";
import { rows } from "../helpers/db";
import { world } from "../helpers/world";
import { basic, bearer, call, registryToken } from "./support";

const bucket = (env as unknown as Bindings).BLOBS;

describe("the sweep of abandoned upload sessions (cron 0 12 * * *)", () => {
  it("aborts sessions started more than a week ago: parts removed from R2, rows gone; newer sessions stay", async () => {
    const w = await world();
    const dev = await w.user();
    const project = await w.project({ developers: [dev] });
    const image = project.fullPath.toLowerCase();
    const token = await registryToken(basic(dev.token), `repository:${image}:pull,push`);
    const open = async () => {
      const started = await call("POST", `/v2/${image}/blobs/uploads/`, bearer(token));
      expect(started.status).toBe(202);
      const uuid = started.headers.get("docker-upload-uuid")!;
      const chunk = await call("PATCH", `/v2/${image}/blobs/uploads/${uuid}`, { ...bearer(token), "Content-Range": "0-4" }, "hello");
      expect(chunk.status).toBe(202);
      return uuid;
    };
    const old = await open();
    const fresh = await open();
    await rows(w, sql`UPDATE container_uploads SET created_at = now() - interval '8 days' WHERE uuid = ${old}`);
    expect(await bucket.head(`registry/uploads/${old}/0`)).not.toBeNull();
    const swept = await sweepAbandonedUploads(env as unknown as Bindings, new Date());
    expect(swept).toContain(old);
    expect(swept).not.toContain(fresh);
    expect(await bucket.head(`registry/uploads/${old}/0`)).toBeNull();
    expect(await bucket.head(`registry/uploads/${fresh}/0`)).not.toBeNull();
    expect(await rows(w, sql`SELECT uuid FROM container_uploads WHERE uuid IN (${old}, ${fresh})`)).toEqual([{ uuid: fresh }]);
    // The client of the aborted session is told it is gone.
    const status = await call("GET", `/v2/${image}/blobs/uploads/${old}`, bearer(token));
    expect(status.status).toBe(404);
    expect(await status.json()).toEqual({ errors: [{ code: "BLOB_UPLOAD_UNKNOWN", message: "blob upload unknown to registry", detail: { uuid: old } }] });
    // A second sweep at the same time finds nothing of this project's (the first took it).
    expect(await sweepAbandonedUploads(env as unknown as Bindings, new Date())).not.toContain(old);
    // The bound is a week: a session 6 days old stays.
    await rows(w, sql`UPDATE container_uploads SET created_at = now() - interval '6 days' WHERE uuid = ${fresh}`);
    expect(ABANDONED_UPLOAD_MS).toBe(7 * 864e5);
    expect(await sweepAbandonedUploads(env as unknown as Bindings, new Date())).not.toContain(fresh);
  });
});
