import { expect, it } from "vitest";
import { statusAndBody } from "./client";
import { world, type Role, type TestProject, type TestUser, type World } from "./world";

/**
 * Reusable examples. Each creates its own world, so they can be dropped into any `describe`.
 */
export function requiresAuthentication(send: (w: World) => Promise<Response>) {
  it("answers 401 without credentials", async () => {
    const w = await world();
    expect(await statusAndBody(await send(w))).toEqual([401, { message: "401 Unauthorized" }]);
  });
}

/** A private project is missing (404 Project Not Found) for a signed-in stranger. */
export function hidesPrivateProject(send: (w: World, project: TestProject) => Promise<Response>) {
  it("answers 404 Project Not Found for a private project the caller is not a member of", async () => {
    const w = await world();
    const project = await w.project({ visibility: "private" });
    expect(await statusAndBody(await send(w, project))).toEqual([404, { message: "404 Project Not Found" }]);
  });
}

/** 403 {"message":"403 Forbidden"} for members of the project with these roles. */
export function forbidsRoles(roles: Role[], send: (w: World, project: TestProject, user: TestUser) => Promise<Response>) {
  for (const role of roles) {
    it(`answers 403 for a ${role}`, async () => {
      const w = await world();
      const user = await w.user();
      const project = await w.project({ visibility: "private", [`${role}s`]: [user] });
      expect(await statusAndBody(await send(w, project, user))).toEqual([403, { message: "403 Forbidden" }]);
    });
  }
}

/** Walks every page of a list through `Link: rel="next"`, as gitbeaker does, and returns all items. */
export async function followPages(w: World, first: Response, token: string | null): Promise<unknown[]> {
  const items: unknown[] = [];
  let res = first;
  for (let guard = 0; guard < 100; guard++) {
    expect(res.status).toBe(200);
    items.push(...((await res.json()) as unknown[]));
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "");
    if (!next) return items;
    const { request } = await import("./client");
    res = await request("GET", next[1], token);
  }
  throw new Error("pagination did not end");
}
