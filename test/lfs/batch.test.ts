import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { namespaces, projects } from "../../db/schema";
import { world } from "../helpers/world";
import { BASE } from "../helpers/client";
import { basic, batch, lfsContent, LFS_JSON, putObject, repoUrl } from "../helpers/lfs";

type Json = Record<string, any>;
const HELP = { documentation_url: `${BASE}/help` };

describe("POST /<full_path>.git/info/lfs/objects/batch", () => {
  it("offers uploads of what the project lacks, then downloads of what it has", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    const a = await lfsContent();
    const b = await lfsContent();
    const up = await batch(project, developer, { operation: "upload", transfers: ["basic"], objects: [{ oid: a.oid, size: a.size }] });
    expect(up.status).toBe(200);
    expect(up.headers.get("content-type")).toContain(LFS_JSON);
    expect(await up.json()).toEqual({
      objects: [
        {
          oid: a.oid,
          size: a.size,
          actions: {
            upload: {
              href: `${repoUrl(project)}/gitlab-lfs/objects/${a.oid}/${a.size}`,
              header: { ...basic(developer), "Content-Type": "application/octet-stream", "Transfer-Encoding": "chunked" },
            },
          },
        },
      ],
    });
    expect((await putObject(project, developer, a.oid, a.size, a.bytes)).status).toBe(200);
    const again = (await (await batch(project, developer, { operation: "upload", objects: [{ oid: a.oid, size: a.size }] })).json()) as Json;
    expect(again).toEqual({ objects: [{ oid: a.oid, size: a.size }] });
    const down = await batch(project, developer, { operation: "download", objects: [a, b].map(({ oid, size }) => ({ oid, size })) });
    expect(await down.json()).toEqual({
      objects: [
        { oid: a.oid, size: a.size, actions: { download: { href: `${repoUrl(project)}/gitlab-lfs/objects/${a.oid}`, header: basic(developer) } } },
        { oid: b.oid, size: b.size, error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" } },
      ],
    });
  });

  it("does not show another project's objects, but shows a fork its source's", async () => {
    const w = await world();
    const owner = await w.user();
    const source = await w.project({ owner });
    const other = await w.project({ owner });
    const fork = await w.project({ owner });
    await w.db((db) => db.update(projects).set({ forkedFromProjectId: source.id }).where(eq(projects.id, fork.id)));
    const a = await lfsContent();
    expect((await putObject(source, owner, a.oid, a.size, a.bytes)).status).toBe(200);
    const ask = { operation: "download", objects: [{ oid: a.oid, size: a.size }] };
    expect(((await (await batch(other, owner, ask)).json()) as Json).objects[0].error.code).toBe(404);
    expect(((await (await batch(fork, owner, ask)).json()) as Json).objects[0].actions.download.href).toBe(`${repoUrl(fork)}/gitlab-lfs/objects/${a.oid}`);
    // The fork's upload of the same object needs no transfer.
    expect(await (await batch(fork, owner, { operation: "upload", objects: [{ oid: a.oid, size: a.size }] })).json()).toEqual({ objects: [{ oid: a.oid, size: a.size }] });
  });

  it("lets anonymous callers download from public projects only (401 with the Basic challenge otherwise)", async () => {
    const w = await world();
    const owner = await w.user();
    const open = await w.project({ owner, visibility: "public" });
    const closed = await w.project({ owner, visibility: "private" });
    const a = await lfsContent();
    await putObject(open, owner, a.oid, a.size, a.bytes);
    const down = (await (await batch(open, null, { operation: "download", objects: [{ oid: a.oid, size: a.size }] })).json()) as Json;
    expect(down.objects[0]).toEqual({ oid: a.oid, size: a.size, actions: { download: { href: `${repoUrl(open)}/gitlab-lfs/objects/${a.oid}`, header: {} } }, authenticated: true });
    for (const [project, operation] of [[closed, "download"], [open, "upload"], [open, "lock"]] as const) {
      const res = await batch(project, null, { operation, objects: [{ oid: a.oid, size: a.size }] });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="GitLab"');
    }
    expect((await batch(`${w.stranger.username}/nope`, null, { operation: "download", objects: [a] })).status).toBe(401);
  });

  it("refuses by role: reporters may not upload (403), strangers learn nothing of a private project (404)", async () => {
    const w = await world();
    const reporter = await w.user();
    const project = await w.project({ reporters: [reporter] });
    const publicProject = await w.project({ visibility: "public" });
    const a = await lfsContent();
    const objects = [{ oid: a.oid, size: a.size }];
    const forbidden = [403, { message: "Access forbidden. Check your access level.", ...HELP }];
    const notFound = [404, { message: "Not found.", ...HELP }];
    const answer = async (res: Response) => [res.status, await res.json()];
    expect((await batch(project, reporter, { operation: "download", objects })).status).toBe(200);
    expect(await answer(await batch(project, reporter, { operation: "upload", objects }))).toEqual(forbidden);
    expect(await answer(await batch(project, w.stranger, { operation: "download", objects }))).toEqual(notFound);
    expect(await answer(await batch(`${w.stranger.username}/nope`, w.stranger, { operation: "download", objects }))).toEqual(notFound);
    expect(await answer(await batch(publicProject, w.stranger, { operation: "upload", objects }))).toEqual(forbidden);
    expect(await answer(await batch(project, reporter, { operation: "lock", objects }))).toEqual(forbidden);
    const bad = await batch(project, "glpat-not-a-token", { operation: "download", objects });
    expect(bad.status).toBe(401);
  });

  it("honours the namespace's lfs_enabled (403 for readers, 404 for strangers)", async () => {
    const w = await world();
    const developer = await w.user();
    const group = await w.group({ developers: [developer] });
    const project = await w.project({ group });
    await w.db((db) => db.update(namespaces).set({ lfsEnabled: false }).where(eq(namespaces.id, group.id)));
    const objects = [{ oid: "a".repeat(64), size: 1 }];
    expect([(await batch(project, developer, { operation: "download", objects })).status]).toEqual([403]);
    expect([(await batch(project, w.stranger, { operation: "download", objects })).status]).toEqual([404]);
  });

  it("answers 404 without objects and 422 for malformed ones", async () => {
    const w = await world();
    const developer = await w.user();
    const project = await w.project({ developers: [developer] });
    expect(await (await batch(project, developer, { operation: "download", objects: [] })).json()).toEqual({ message: "Not found.", ...HELP });
    expect((await batch(project, developer, { operation: "download" })).status).toBe(404);
    for (const body of ["{not json", { operation: "upload", objects: [{ oid: "xyz", size: 1 }] }, { operation: "upload", objects: [{ oid: "a".repeat(64), size: -1 }] }, { operation: "upload", objects: "x" }]) {
      const res = await batch(project, developer, body);
      expect(res.status).toBe(422);
      expect(((await res.json()) as Json).message).toMatch(/^Validation error/);
    }
  });
});
