import { describe, expect, it } from "vitest";
import { BASE, request, statusAndBody } from "../helpers/client";
import { world } from "../helpers/world";

type Json = Record<string, any>;

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7]);
const FORMATS = "png, jpg, jpeg, gif, bmp, tiff, ico, webp";
const badFormat = `file format is not supported. Please try one of the following supported formats: ${FORMATS}`;

function form(fields: Record<string, string>, avatar?: { name: string; bytes?: Uint8Array; type?: string }) {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  if (avatar) data.append("avatar", new File([avatar.bytes ?? PNG], avatar.name, { type: avatar.type ?? "image/png" }));
  return data;
}

/** The stored avatar through its web path (absolute `avatar_url`). */
const fetchAvatar = (url: string, token: string | null) => request("GET", url, token);

describe("avatar on POST /users and PUT /users/:id", () => {
  it("stores the file, shows it as avatar_url, serves it to anyone, replaces it", async () => {
    const w = await world();
    const username = `ava${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const res = await w.root.post("/users", {
      multipart: form({ email: `${username}@example.com`, username, name: "Ava", password: "a-long-secret-1234" }, { name: "me photo.png" }),
    });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect(status).toBe(201);
    expect(body.avatar_url).toBe(`${BASE}/uploads/-/system/user/avatar/${body.id}/me_photo.png`);
    const served = await fetchAvatar(body.avatar_url, null);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);

    const put = await w.root.put(`/users/${body.id}`, { multipart: form({}, { name: "next.gif", type: "text/html" }) });
    const updated = (await put.json()) as Json;
    expect(updated.avatar_url).toBe(`${BASE}/uploads/-/system/user/avatar/${body.id}/next.gif`);
    // The type follows the extension, never the client's claim; the old file is gone.
    expect((await fetchAvatar(updated.avatar_url, null)).headers.get("content-type")).toBe("image/gif");
    expect((await fetchAvatar(body.avatar_url, null)).status).toBe(404);
    const shown = (await (await w.root.get(`/users/${body.id}`)).json()) as Json;
    expect(shown.avatar_url).toBe(updated.avatar_url);
  });

  it("answers Avatarable's 400s: an unsupported format, more than 200 KB", async () => {
    const w = await world();
    const user = await w.user();
    expect(await statusAndBody(await w.root.put(`/users/${user.id}`, { multipart: form({}, { name: "notes.txt" }) }))).toEqual([
      400,
      { message: { avatar: [badFormat] } },
    ]);
    const big = new Uint8Array(200 * 1024 + 1);
    expect(await statusAndBody(await w.root.put(`/users/${user.id}`, { multipart: form({}, { name: "big.png", bytes: big }) }))).toEqual([
      400,
      { message: { avatar: ["is too big (should be at most 200 KB)"] } },
    ]);
    expect((await w.as(user).put(`/users/${user.id}`, { multipart: form({}, { name: "a.png" }) })).status).toBe(403);
  });
});

describe("avatar on POST /projects and PUT /projects/:id", () => {
  it("stores it; the web path serves it as the project is readable", async () => {
    const w = await world();
    const owner = await w.user();
    const res = await w.as(owner).post("/projects", { multipart: form({ name: `p${Date.now()}` }, { name: "logo.png" }) });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect(status).toBe(201);
    expect(body.avatar_url).toBe(`${BASE}/uploads/-/system/project/avatar/${body.id}/logo.png`);
    expect((await fetchAvatar(body.avatar_url, owner.token)).status).toBe(200);
    // Private project: a stranger and an anonymous caller get 404.
    expect((await fetchAvatar(body.avatar_url, w.stranger.token)).status).toBe(404);
    expect((await fetchAvatar(body.avatar_url, null)).status).toBe(404);

    const put = await w.as(owner).put(`/projects/${body.id}`, { multipart: form({}, { name: "logo2.jpg" }) });
    expect(((await put.json()) as Json).avatar_url).toBe(`${BASE}/uploads/-/system/project/avatar/${body.id}/logo2.jpg`);
    expect(await statusAndBody(await w.as(owner).put(`/projects/${body.id}`, { multipart: form({}, { name: "x.svg" }) }))).toEqual([
      400,
      { message: { avatar: [badFormat] } },
    ]);
    const developer = await w.user();
    await w.addMembers("Project", body.id, { developers: [developer] });
    expect((await w.as(developer).put(`/projects/${body.id}`, { multipart: form({}, { name: "a.png" }) })).status).toBe(403);
  });
});

describe("avatar on POST /groups and PUT /groups/:id, GET /groups/:id/avatar", () => {
  it("stores it, downloads it as an attachment, 404 Avatar Not Found without one", async () => {
    const w = await world();
    const owner = await w.user();
    const path = `g${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const res = await w.root.post("/groups", { multipart: form({ name: path, path, visibility: "public" }, { name: "team.png" }) });
    const [status, body] = (await statusAndBody(res)) as [number, Json];
    expect(status).toBe(201);
    expect(body.avatar_url).toBe(`${BASE}/uploads/-/system/group/avatar/${body.id}/team.png`);
    const download = await w.anonymous.get(`/groups/${body.id}/avatar`);
    expect([download.status, download.headers.get("content-disposition")]).toEqual([200, 'attachment; filename="team.png"']);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(PNG);
    expect((await fetchAvatar(body.avatar_url, null)).status).toBe(200);

    const bad = await w.root.post("/groups", { multipart: form({ name: `${path}x`, path: `${path}x` }, { name: "team.exe" }) });
    expect(await statusAndBody(bad)).toEqual([400, { message: `Failed to save group {:avatar=>["${badFormat}"]}` }]);

    const plain = await w.group({ owners: [owner] });
    expect(await statusAndBody(await w.as(owner).get(`/groups/${plain.id}/avatar`))).toEqual([404, { message: "404 Avatar Not Found" }]);
    const put = await w.as(owner).put(`/groups/${plain.id}`, { multipart: form({}, { name: "new.webp" }) });
    expect(((await put.json()) as Json).avatar_url).toBe(`${BASE}/uploads/-/system/group/avatar/${plain.id}/new.webp`);
    // A private group's avatar is 404 for strangers, on both paths.
    expect(await statusAndBody(await w.as(w.stranger).get(`/groups/${plain.id}/avatar`))).toEqual([404, { message: "404 Group Not Found" }]);
    expect((await fetchAvatar(`${BASE}/uploads/-/system/group/avatar/${plain.id}/new.webp`, w.stranger.token)).status).toBe(404);
  });
});
