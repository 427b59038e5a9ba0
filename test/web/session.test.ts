import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users, webSessions } from "../../db/schema";
import { BASE, worker } from "../helpers/client";
import { withDb } from "../helpers/db";
import { world } from "../helpers/world";
import { browser, setPassword } from "./support";

const PASSWORD = "correct horse battery";

describe("GET /users/sign_in", () => {
  it("renders the form with a CSRF token and gives the visitor a CSRF cookie", async () => {
    const b = browser();
    const page = await b.get("/users/sign_in");
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.html).toContain('name="user[login]"');
    expect(page.html).toMatch(/name="authenticity_token" value="[0-9a-f]{64}"/);
    const cookie = page.res.headers.getAll("set-cookie").find((c: string) => c.startsWith("_edgeforge_csrf="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });
});

describe("POST /users/sign_in", () => {
  it("signs in by username or e-mail: a session row, an HttpOnly SameSite=Lax cookie, the signed-in header", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    for (const login of [u.username, u.email.toUpperCase()]) {
      const b = browser();
      const res = await b.signIn(login, PASSWORD);
      expect(res.status).toBe(303);
      expect(res.location).toBe("/");
      const cookie = res.res.headers.getAll("set-cookie").find((c: string) => c.startsWith("_edgeforge_session="));
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
      const home = await b.get("/");
      expect(home.html).toContain(`href="/${u.username}"`);
      expect(home.html).toContain("Sign out");
    }
    const sessions = await withDb((db) => db.select().from(webSessions).where(eq(webSessions.userId, u.id)));
    expect(sessions).toHaveLength(2);
    // Only the digest of the cookie is stored.
    expect(sessions[0].sessionDigest).toMatch(/^[0-9a-f]{64}$/);
    const [row] = await withDb((db) => db.select().from(users).where(eq(users.id, u.id)));
    expect(row.signInCount).toBe(2);
    expect(row.currentSignInAt).not.toBeNull();
  });

  it("sends the visitor back to a local redirect_to, never to another origin", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    await b.get("/users/sign_in");
    const local = await b.post("/users/sign_in", { "user[login]": u.username, "user[password]": PASSWORD, redirect_to: "/explore/projects" });
    expect(local.location).toBe("/explore/projects");
    const c2 = browser();
    await c2.get("/users/sign_in");
    const away = await c2.post("/users/sign_in", { "user[login]": u.username, "user[password]": PASSWORD, redirect_to: "//evil.example/x" });
    expect(away.location).toBe("/");
  });

  it("refuses a wrong password or an unknown login with Devise's alert, and sets no session", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    for (const [login, password] of [
      [u.username, "wrong"],
      ["nobody-at-all", PASSWORD],
    ]) {
      const b = browser();
      const res = await b.signIn(login, password);
      expect(res.status).toBe(401);
      expect(res.html).toContain("Invalid login or password.");
      expect(b.jar.has("_edgeforge_session")).toBe(false);
    }
  });

  it("refuses a blocked user", async () => {
    const w = await world();
    const u = await w.user({ state: "blocked" });
    await setPassword(u.id, PASSWORD);
    const res = await browser().signIn(u.username, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.html).toContain("Your account has been blocked.");
  });

  it("locks the account after 10 wrong passwords, even against the right one, until 10 minutes have passed", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    for (let i = 1; i <= 9; i++) expect((await b.signIn(u.username, `wrong-${i}`)).html).toContain("Invalid login or password.");
    const tenth = await b.signIn(u.username, "wrong-10");
    expect(tenth.html).toContain("Your account is locked.");
    const right = await b.signIn(u.username, PASSWORD);
    expect(right.status).toBe(401);
    expect(right.html).toContain("Your account is locked.");
    const [locked] = await withDb((db) => db.select().from(users).where(eq(users.id, u.id)));
    expect(locked.failedAttempts).toBe(10);
    expect(locked.lockedAt).not.toBeNull();
    // Ten minutes later the lock has expired: the right password signs in and the count starts again.
    await withDb((db) => db.update(users).set({ lockedAt: new Date(Date.now() - 11 * 60 * 1000) }).where(eq(users.id, u.id)));
    expect((await b.signIn(u.username, PASSWORD)).status).toBe(303);
    const [after] = await withDb((db) => db.select().from(users).where(eq(users.id, u.id)));
    expect(after.failedAttempts).toBe(0);
    expect(after.lockedAt).toBeNull();
  });

  it("refuses a form without its CSRF token, or with another visitor's, with 422", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    await b.get("/users/sign_in");
    const none = await b.post("/users/sign_in", { "user[login]": u.username, "user[password]": PASSWORD, authenticity_token: null });
    expect(none.status).toBe(422);
    const other = browser();
    const otherPage = await other.get("/users/sign_in");
    const foreign = /name="authenticity_token" value="([^"]+)"/.exec(otherPage.html)![1];
    const forged = await b.post("/users/sign_in", { "user[login]": u.username, "user[password]": PASSWORD, authenticity_token: foreign });
    expect(forged.status).toBe(422);
    expect(b.jar.has("_edgeforge_session")).toBe(false);
  });
});

describe("POST /users/sign_out", () => {
  it("deletes the session row and the cookie; the old cookie is anonymous afterwards", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    await b.signIn(u.username, PASSWORD);
    const cookie = `_edgeforge_session=${b.jar.get("_edgeforge_session")}`;
    await b.get("/");
    const out = await b.post("/users/sign_out");
    expect(out.status).toBe(303);
    expect(await withDb((db) => db.select().from(webSessions).where(eq(webSessions.userId, u.id)))).toHaveLength(0);
    const replay = await worker.fetch(new Request(`${BASE}/`, { headers: { Cookie: cookie } }));
    expect(await replay.text()).not.toContain("Sign out");
  });

  it("refuses a sign-out without the CSRF token", async () => {
    const w = await world();
    const u = await w.user();
    await setPassword(u.id, PASSWORD);
    const b = browser();
    await b.signIn(u.username, PASSWORD);
    expect((await b.post("/users/sign_out", { authenticity_token: null })).status).toBe(422);
    expect(await withDb((db) => db.select().from(webSessions).where(eq(webSessions.userId, u.id)))).toHaveLength(1);
  });
});

describe("unknown paths", () => {
  it("answer the HTML 404 page outside /api and GitLab's JSON 404 under it", async () => {
    const html = await worker.fetch(new Request(`${BASE}/-/no/such/page`));
    expect(html.status).toBe(404);
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
    expect(await html.text()).toContain("404: Page not found");
    const json = await worker.fetch(new Request(`${BASE}/api/v4/no_such_thing`));
    expect(json.status).toBe(404);
    expect(await json.json()).toEqual({ error: "404 Not Found" });
  });
});
