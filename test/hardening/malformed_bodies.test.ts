import { describe, expect, it } from "vitest";
import { BASE, worker } from "../helpers/client";
import { world } from "../helpers/world";
import { integrationsPath, notify } from "../helpers/alerts";

/**
 * Outside /api/v4: the handlers that parse their JSON body themselves answer a NUL in
 * any string with HandleMalformedStrings' `400 Bad Request` (text/plain), as the kernel does for every
 * API parameter, instead of Postgres' error on the jsonb or text column (a 500).
 */
const answer = async (res: Response) => [res.status, res.headers.get("content-type"), await res.text()];

describe("POST /<full_path>/-/alerts/notify/… (alert receiver)", () => {
  it("answers 400 Bad Request to a payload with a NUL", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ visibility: "private", maintainers: [owner] });
    const res = await w.as(owner).post(integrationsPath(project.id), { json: { name: "nul", active: true } });
    expect(res.status).toBe(201);
    const integration = (await res.json()) as { url: string; token: string };
    expect(await answer(await notify(integration.url, integration.token, { title: "a\u0000b" }))).toEqual([400, "text/plain", "Bad Request"]);
    expect(await answer(await notify(integration.url, integration.token, { nested: { list: ["ok", "\u0000"] } }))).toEqual([400, "text/plain", "Bad Request"]);
    // The same payload without the NUL is accepted.
    expect((await notify(integration.url, integration.token, { title: "ab" })).status).toBe(200);
  });
});

describe("POST /<full_path>.git/info/lfs/locks", () => {
  it("answers 400 Bad Request to a path with a NUL", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ visibility: "private", developers: [developer] });
    const lock = (path: string) =>
      worker.fetch(
        new Request(`${BASE}/${project.fullPath}.git/info/lfs/locks`, {
          method: "POST",
          headers: { Authorization: `Basic ${btoa(`u:${developer.token}`)}`, Accept: "application/vnd.git-lfs+json", "Content-Type": "application/vnd.git-lfs+json" },
          body: JSON.stringify({ path }),
        }),
      );
    expect(await answer(await lock("a\u0000.bin"))).toEqual([400, "text/plain", "Bad Request"]);
    expect((await lock("a.bin")).status).toBe(201);
  });
});
