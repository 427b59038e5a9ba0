import { describe, expect, it } from "vitest";
import { BASE, request, statusAndBody } from "../helpers/client";
import { hidesPrivateProject, requiresAuthentication } from "../helpers/shared";
import { world } from "../helpers/world";

type Json = Record<string, any>;

function fileForm(name: string, content: string | Uint8Array, type = "application/octet-stream") {
  const form = new FormData();
  form.append("file", new File([content], name, { type }));
  return form;
}

describe("POST /projects/:id/uploads", () => {
  requiresAuthentication((w) => w.anonymous.post("/projects/1/uploads", { multipart: fileForm("a.txt", "a") }));
  hidesPrivateProject((w, project) => w.as(w.stranger).post(`/projects/${project.id}/uploads`, { multipart: fileForm("a.txt", "a") }));

  it("stores an image and answers GitLab's ProjectUpload; the web path serves it as the project is readable", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "private" });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const res = await w.as(owner).post(`/projects/${project.id}/uploads`, { multipart: fileForm("my shot].png", png, "image/png") });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    const secret = /^\/uploads\/([0-9a-f]{32})\//.exec(body.url)?.[1];
    expect(secret).toBeDefined();
    expect(body).toEqual({
      alt: "my_shot_",
      url: `/uploads/${secret}/my_shot_.png`,
      full_path: `/${project.fullPath}/uploads/${secret}/my_shot_.png`,
      markdown: `![my_shot_](/uploads/${secret}/my_shot_.png)`,
    });
    const served = await request("GET", `${BASE}${body.full_path}`, owner.token);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("content-disposition")).toContain("inline");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(png);
    // Not readable: 404, as for a wrong secret.
    expect((await request("GET", `${BASE}${body.full_path}`, w.stranger.token)).status).toBe(404);
    expect((await request("GET", `${BASE}${body.full_path}`, null)).status).toBe(404);
    expect((await request("GET", `${BASE}/${project.fullPath}/uploads/${"0".repeat(32)}/my_shot_.png`, owner.token)).status).toBe(404);
  });

  it("links other files without `!` and serves them as attachments, anonymously for a public project", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner, visibility: "public" });
    const body = (await (await w.as(owner).post(`/projects/${project.id}/uploads`, { multipart: fileForm("notes.txt", "hello", "text/plain") })).json()) as Json;
    expect(body.alt).toBe("notes.txt");
    expect(body.markdown).toBe(`[notes.txt](${body.url})`);
    const served = await request("GET", `${BASE}${body.full_path}`, null);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toContain("attachment");
    expect(await served.text()).toBe("hello");
  });

  it("answers 400 without a file and 413 above max_attachment_size", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/uploads`, { json: {} }))).toEqual([400, { error: "file is missing" }]);
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    expect(await statusAndBody(await w.as(owner).post(`/projects/${project.id}/uploads`, { multipart: fileForm("big.bin", big) }))).toEqual([
      413,
      { message: "413 Request Entity Too Large" },
    ]);
  });

  it("lets a signed-in non-member upload to a public project (upload_file), not to an archived one", async () => {
    const w = await world();
    const project = await w.project({ visibility: "public" });
    expect((await w.as(w.stranger).post(`/projects/${project.id}/uploads`, { multipart: fileForm("a.txt", "a") })).status).toBe(201);
    const archived = await w.project({ visibility: "public", archived: true });
    expect(await statusAndBody(await w.as(w.stranger).post(`/projects/${archived.id}/uploads`, { multipart: fileForm("a.txt", "a") }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
  });
});
