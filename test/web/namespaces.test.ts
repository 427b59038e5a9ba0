import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { personalAccessTokens, users } from "../../db/schema";
import { BASE, worker } from "../helpers/client";
import { withDb } from "../helpers/db";
import { world } from "../helpers/world";
import { browser, setPassword } from "./support";

const PASSWORD = "correct horse battery";
const get = (path: string) => worker.fetch(new Request(`${BASE}${path}`, { redirect: "manual" }));

describe("GET /", () => {
  it("says what Edgeforge is, its version and links to the API reference; never lists a private project to an anonymous visitor", async () => {
    const w = await world();
    const hidden = await w.project({ visibility: "private" });
    const res = await get("/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("15.4.0-ee");
    expect(html).toContain('href="/api/v4/docs"');
    expect(html).toContain("<main");
    const explore = await (await get("/explore/projects?page=1")).text();
    expect(explore).toContain("Explore projects");
    // Other test files add public projects all the time, so only the absence is certain.
    expect(html).not.toContain(`href="/${hidden.fullPath}"`);
  });

  it("is the dashboard of the user's projects when signed in", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const mine = await w.project({ visibility: "private", developers: [u] });
    const b = browser();
    await b.signIn(u.username, PASSWORD);
    const home = await b.get("/");
    expect(home.html).toContain("Your projects");
    expect(home.html).toContain(`href="/${mine.fullPath}"`);
  });
});

describe("GET /:group", () => {
  it("lists the subgroups and projects the visitor may see; a private group is the 404 page", async () => {
    const w = await world();
    const group = await w.group({ visibility: "public" });
    const sub = await w.group({ visibility: "public", parent: group });
    const hiddenSub = await w.group({ visibility: "private", parent: group });
    const project = await w.project({ visibility: "public", group });
    const secret = await w.project({ visibility: "private", group });
    const res = await get(`/${group.fullPath}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`href="/${sub.fullPath}"`);
    expect(html).toContain(`href="/${project.fullPath}"`);
    expect(html).not.toContain(hiddenSub.fullPath);
    expect(html).not.toContain(secret.fullPath);
    expect((await get(`/${sub.fullPath}`)).status).toBe(200);
    // The group's `web_url` (/groups/<full_path>) is the same page.
    const api = (await (await worker.fetch(new Request(`${BASE}/api/v4/groups/${sub.id}`))).json()) as { web_url: string };
    const byWebUrl = await get(new URL(api.web_url).pathname);
    expect(byWebUrl.status).toBe(200);
    expect(await byWebUrl.text()).toContain(`<h1>${sub.name}</h1>`);
    expect((await get(`/groups/${hiddenSub.fullPath}`)).status).toBe(404);
    expect((await get(`/${hiddenSub.fullPath}`)).status).toBe(404);
  });
});

describe("GET /:username", () => {
  it("shows the profile and personal projects, escaped; a private profile shows the name only", async () => {
    const w = await world();
    const u = await w.user({ name: `Eve <img src=x onerror=alert(1)>` });
    await withDb((db) => db.update(users).set({ bio: "Builds things" }).where(eq(users.id, u.id)));
    const project = await w.project({ visibility: "public", owner: u });
    const html = await (await get(`/${u.username}`)).text();
    expect(html).toContain("Eve &lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("Builds things");
    expect(html).toContain(`href="/${project.fullPath}"`);
    await withDb((db) => db.update(users).set({ privateProfile: true }).where(eq(users.id, u.id)));
    const hidden = await (await get(`/${u.username}`)).text();
    expect(hidden).toContain("This user has a private profile.");
    expect(hidden).not.toContain("Builds things");
    expect((await get("/no-such-user-at-all")).status).toBe(404);
  });
});

describe("GET /-/user_settings/personal_access_tokens", () => {
  it("sends an anonymous visitor to sign in", async () => {
    const res = await get("/-/user_settings/personal_access_tokens");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/users/sign_in?redirect_to=%2F-%2Fuser_settings%2Fpersonal_access_tokens");
  });

  it("creates a token shown once, refuses a blank name, and revokes only the user's own tokens", async () => {
    const w = await world();
    const u = await w.user();
    const other = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    await b.signIn(u.username, PASSWORD);
    await b.get("/-/user_settings/personal_access_tokens");
    const blank = await b.post("/-/user_settings/personal_access_tokens", { name: " ", "scopes[]": "api" });
    expect(blank.status).toBe(400);
    expect(blank.html).toContain("Name can&#39;t be blank");
    const created = await b.post("/-/user_settings/personal_access_tokens", { name: "laptop", "scopes[]": "read_api" });
    expect(created.status).toBe(200);
    const value = /id="created-token" type="text" readonly="" value="(glpat-[^"]+)"/.exec(created.html)![1];
    const me = await worker.fetch(new Request(`${BASE}/api/v4/user`, { headers: { "PRIVATE-TOKEN": value } }));
    expect(me.status).toBe(200);
    const [row] = await withDb((db) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.name, "laptop")));
    expect(row.scopes).toEqual(["read_api"]);
    // Another user's token: the 404 page, and it stays active.
    const [foreign] = await withDb((db) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, other.id)));
    expect((await b.post(`/-/user_settings/personal_access_tokens/${foreign.id}/revoke`)).status).toBe(404);
    const revoked = await b.post(`/-/user_settings/personal_access_tokens/${row.id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await worker.fetch(new Request(`${BASE}/api/v4/user`, { headers: { "PRIVATE-TOKEN": value } }))).status).toBe(401);
    const [otherStill] = await withDb((db) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, foreign.id)));
    expect(otherStill.revoked).toBe(false);
  });
});
