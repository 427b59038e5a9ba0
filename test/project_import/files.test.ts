import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { lfsObjects, lfsObjectsProjects, projectTransferJobs, uploads } from "../../db/schema";
import type { Bindings } from "../../functions/kernel/env";
import { queue } from "../../functions/queue";
import { BASE, request } from "../helpers/client";
import { unique, world, type TestUser } from "../helpers/world";
import { getObject, lfsContent, putObject, sha256 } from "../helpers/lfs";
import { multipart, settledImport, targz } from "./support";

type World = Awaited<ReturnType<typeof world>>;
type Json = Record<string, any>;

async function exportArchive(w: World, maintainer: TestUser, projectId: number): Promise<Uint8Array> {
  const [job] = await w.db((db) => db.insert(projectTransferJobs).values({ kind: "export", projectId, userId: maintainer.id, correlationId: "test" }).returning());
  const batch = createMessageBatch("edgeforge-exports", [{ id: `export-${job.id}`, timestamp: new Date(), attempts: 1, body: { kind: "export", id: job.id } }]);
  const ctx = createExecutionContext();
  await queue(batch, env as unknown as Bindings, ctx);
  await getQueueResult(batch, ctx);
  const res = await w.as(maintainer).get(`/projects/${projectId}/export/download`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

function attach(name: string, content: string | Uint8Array, type: string) {
  const form = new FormData();
  form.append("file", new File([content], name, { type }));
  return form;
}

/** The project's uploads as (path, size, checksum, content type), and the bytes its web path serves. */
async function uploadsOf(w: World, user: TestUser, projectId: number, fullPath: string) {
  const rows = await w.db((db) => db.select().from(uploads).where(eq(uploads.modelId, projectId)).orderBy(uploads.path));
  return Promise.all(
    rows.map(async (r) => {
      const served = await request("GET", `${BASE}/${fullPath}/uploads/${r.path}`, user.token);
      return [r.path, r.size, r.checksum, r.contentType, served.status, await sha256(new Uint8Array(await served.arrayBuffer()))];
    }),
  );
}

describe("export → import round trip of uploads, LFS objects and the avatar", () => {
  it("keeps each upload at its secret and name with its bytes, and links the LFS objects to the new project", async () => {
    const w = await world();
    const maintainer = await w.user();
    const source = await w.project({ maintainers: [maintainer] });
    const api = w.as(maintainer);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9, 8, 7]);
    const shot = (await (await api.post(`/projects/${source.id}/uploads`, { multipart: attach("shot.png", png, "image/png") })).json()) as Json;
    await api.post(`/projects/${source.id}/uploads`, { multipart: attach("notes.txt", "hello", "text/plain") });
    // The issue's Markdown points at the upload; after the import it still does.
    expect((await api.post(`/projects/${source.id}/issues`, { json: { title: "With a picture", description: shot.markdown } })).status).toBe(201);
    const lfs = await lfsContent();
    expect((await putObject(source, maintainer, lfs.oid, lfs.size, lfs.bytes)).status).toBe(200);
    const logo = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 4, 5, 6]);
    const avatarForm = new FormData();
    avatarForm.append("avatar", new File([logo], "logo.png", { type: "image/png" }));
    expect((await api.put(`/projects/${source.id}`, { multipart: avatarForm })).status).toBe(200);

    const archive = await exportArchive(w, maintainer, source.id);
    const importer = await w.user();
    const path = unique("copy");
    const created = (await (await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path }) })).json()) as Json;
    const done = await settledImport(w, importer, created.id);
    expect([done.import_status, done.failed_relations]).toEqual(["finished", []]);
    const target = { ...source, id: created.id, fullPath: created.path_with_namespace as string };

    const before = await uploadsOf(w, maintainer, source.id, source.fullPath);
    const after = await uploadsOf(w, importer, target.id, target.fullPath);
    expect(after).toEqual(before);
    expect(before).toHaveLength(2);
    expect(after.every((u) => u[4] === 200)).toBe(true);
    const issue = (await (await w.as(importer).get(`/projects/${target.id}/issues/1`)).json()) as Json;
    expect(issue.description).toBe(shot.markdown);
    expect((await request("GET", `${BASE}/${target.fullPath}${shot.url}`, importer.token)).status).toBe(200);

    // The avatar (AvatarSaver, AvatarRestorer): the new project's own, same bytes.
    const copied = (await (await w.as(importer).get(`/projects/${target.id}`)).json()) as Json;
    expect(copied.avatar_url).toBe(`${BASE}/uploads/-/system/project/avatar/${target.id}/logo.png`);
    const avatar = await request("GET", copied.avatar_url, importer.token);
    expect([avatar.status, [...new Uint8Array(await avatar.arrayBuffer())]]).toEqual([200, [...logo]]);

    // The LFS object: one row on this instance, linked to both projects, readable from the new one.
    const served = await getObject(target as never, importer, lfs.oid);
    expect([served.status, await sha256(new Uint8Array(await served.arrayBuffer()))]).toEqual([200, lfs.oid]);
    const objects = await w.db((db) => db.select().from(lfsObjects).where(eq(lfsObjects.oid, lfs.oid)));
    expect(objects).toHaveLength(1);
    const links = await w.db((db) => db.select().from(lfsObjectsProjects).where(eq(lfsObjectsProjects.lfsObjectId, objects[0].id)));
    expect(links.map((l) => [l.projectId, l.repositoryType]).sort()).toEqual([[source.id, null], [target.id, null]].sort());
  });
});

describe("uploads and LFS objects of a GitLab 15.x archive (UploadsManager#restore, LfsRestorer)", () => {
  it("restores uploads/<secret>/<name> and lfs-objects/<oid> by their content's SHA-256, with lfs-objects.json's repository types", async () => {
    const w = await world();
    const importer = await w.user();
    const secret = "0123456789abcdef0123456789abcdef";
    const project = await lfsContent(`project ${crypto.randomUUID()}\n`);
    const wiki = await lfsContent(`wiki ${crypto.randomUUID()}\n`);
    const unlisted = await lfsContent(`unlisted ${crypto.randomUUID()}\n`);
    const archive = targz({
      VERSION: "0.2.4",
      "tree/project.json": JSON.stringify({ description: "with files" }),
      [`uploads/${secret}/diagram.pdf`]: "%PDF-1.4 fake",
      "uploads/not-a-secret/x.txt": "stray",
      // Avatarable refuses a non-image: a failed relation, not a failed import.
      "avatar/readme.txt": "not an image",
      [`lfs-objects/${project.oid}`]: project.bytes,
      [`lfs-objects/${wiki.oid}`]: wiki.bytes,
      // GitLab computes the oid from the content, whatever the member's name.
      "lfs-objects/misnamed": unlisted.bytes,
      // GitLab writes the enum values LfsObjectsProject stores (0 project, 1 wiki).
      "lfs-objects.json": JSON.stringify({ [project.oid]: [0], [wiki.oid]: ["wiki"] }),
    });
    const created = (await (await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path: unique("gl") }) })).json()) as Json;
    const done = await settledImport(w, importer, created.id);
    expect(done.import_status).toBe("finished");
    expect(done.failed_relations.map((f: Json) => [f.relation_name, f.exception_message]).sort()).toEqual([
      ["avatar", "Avatar file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp"],
      ["uploads", "uploads/not-a-secret/x.txt is not an upload path (uploads/<secret>/<filename>)"],
    ]);

    const rows = await w.db((db) => db.select().from(uploads).where(eq(uploads.modelId, created.id)));
    expect(rows.map((r) => [r.path, r.secret, r.size, r.contentType, r.uploadedById])).toEqual([[`${secret}/diagram.pdf`, secret, 13, "application/pdf", importer.id]]);
    const pdf = await request("GET", `${BASE}/${created.path_with_namespace}/uploads/${secret}/diagram.pdf`, importer.token);
    expect([pdf.status, await pdf.text()]).toEqual([200, "%PDF-1.4 fake"]);

    const links = await w.db((db) =>
      db.select({ oid: lfsObjects.oid, type: lfsObjectsProjects.repositoryType }).from(lfsObjectsProjects).innerJoin(lfsObjects, eq(lfsObjects.id, lfsObjectsProjects.lfsObjectId)).where(eq(lfsObjectsProjects.projectId, created.id)),
    );
    expect(links.sort((a, b) => a.oid.localeCompare(b.oid))).toEqual(
      [{ oid: project.oid, type: null }, { oid: wiki.oid, type: 1 }, { oid: unlisted.oid, type: null }].sort((a, b) => a.oid.localeCompare(b.oid)),
    );
    const target = { id: created.id, fullPath: created.path_with_namespace } as never;
    const served = await getObject(target, importer, unlisted.oid);
    expect([served.status, await served.text()]).toEqual([200, new TextDecoder().decode(unlisted.bytes)]);
  });

  it("fails the import on an lfs-objects.json that is not JSON, with GitLab's message", async () => {
    const w = await world();
    const importer = await w.user();
    const lfs = await lfsContent();
    const archive = targz({ VERSION: "0.2.4", "tree/project.json": "{}", [`lfs-objects/${lfs.oid}`]: lfs.bytes, "lfs-objects.json": "{not json" });
    const created = (await (await w.as(importer).post("/projects/import", { multipart: multipart(archive, { path: unique("badlfs") }) })).json()) as Json;
    const failed = await settledImport(w, importer, created.id);
    expect([failed.import_status, failed.import_error]).toEqual(["failed", "Incorrect JSON format"]);
  });
});
