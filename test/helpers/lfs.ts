import { BASE, worker } from "./client";
import type { TestProject, TestUser } from "./world";

export const LFS_JSON = "application/vnd.git-lfs+json";

export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Bytes that differ per call, with their oid. */
export async function lfsContent(text = `lfs ${crypto.randomUUID()}\n`): Promise<{ bytes: Uint8Array; oid: string; size: number }> {
  const bytes = new TextEncoder().encode(text);
  return { bytes, oid: await sha256(bytes), size: bytes.length };
}

/** HTTP Basic as git and git-lfs send it: any user name, the personal access token as the password. */
export const basic = (user: TestUser | string | null): Record<string, string> =>
  user === null ? {} : { Authorization: `Basic ${btoa(`anyone:${typeof user === "string" ? user : user.token}`)}` };

export const repoUrl = (project: TestProject) => `${BASE}/${project.fullPath}.git`;

export function batch(project: TestProject | string, user: TestUser | string | null, body: unknown): Promise<Response> {
  const url = typeof project === "string" ? `${BASE}/${project}.git` : repoUrl(project);
  return worker.fetch(
    new Request(`${url}/info/lfs/objects/batch`, {
      method: "POST",
      headers: { ...basic(user), Accept: LFS_JSON, "Content-Type": LFS_JSON },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

export function putObject(project: TestProject, user: TestUser | null, oid: string, size: number, bytes: Uint8Array): Promise<Response> {
  return worker.fetch(
    new Request(`${repoUrl(project)}/gitlab-lfs/objects/${oid}/${size}`, {
      method: "PUT",
      headers: { ...basic(user), "Content-Type": "application/octet-stream" },
      body: bytes,
    }),
  );
}

export function getObject(project: TestProject, user: TestUser | null, oid: string): Promise<Response> {
  return worker.fetch(new Request(`${repoUrl(project)}/gitlab-lfs/objects/${oid}`, { headers: basic(user) }));
}

/** The pointer file git-lfs commits in place of the content. */
export const pointerFile = (oid: string, size: number) => `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${size}\n`;

/** A request of the LFS locking API: `suffix` after `…/info/lfs/locks`, a JSON body for POSTs. */
export function locks(project: TestProject | string, user: TestUser | string | null, method: "GET" | "POST", suffix = "", body?: unknown): Promise<Response> {
  const url = typeof project === "string" ? `${BASE}/${project}.git` : repoUrl(project);
  return worker.fetch(
    new Request(`${url}/info/lfs/locks${suffix}`, {
      method,
      headers: { ...basic(user), Accept: LFS_JSON, ...(body === undefined ? {} : { "Content-Type": LFS_JSON }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}
