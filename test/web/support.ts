import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { hashPassword } from "../../functions/shared/passwords";
import { BASE, worker } from "../helpers/client";
import { withDb } from "../helpers/db";

/**
 * A browser without JavaScript for the web pages (functions/web): a cookie jar, redirects not
 * followed, and forms posted with the CSRF token of the last page that had one.
 */
export function browser() {
  const jar = new Map<string, string>();
  let token: string | null = null;

  function remember(res: Response) {
    for (const line of res.headers.getAll("set-cookie")) {
      const [pair, ...attrs] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attrs.some((a: string) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=.*1970/i.test(a));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  }

  async function send(method: string, path: string, body?: URLSearchParams, headers: Record<string, string> = {}) {
    const h = new Headers(headers);
    if (jar.size) h.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    if (body) h.set("Content-Type", "application/x-www-form-urlencoded");
    const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers: h, body, redirect: "manual" }));
    remember(res);
    return res;
  }

  return {
    jar,
    /** GET a page; its text, status and the CSRF token of its forms. */
    async get(path: string) {
      const res = await send("GET", path);
      const html = await res.text();
      const found = /name="authenticity_token" value="([^"]+)"/.exec(html);
      if (found) token = found[1];
      return { res, status: res.status, html };
    },
    /** POST a form with the last page's token (`authenticity_token: null` sends none). */
    async post(path: string, form: Record<string, string | null> = {}) {
      const body = new URLSearchParams();
      const withToken = { authenticity_token: token, ...form };
      for (const [k, v] of Object.entries(withToken)) if (v !== null) body.set(k, v);
      const res = await send("POST", path, body);
      const html = await res.text();
      return { res, status: res.status, html, location: res.headers.get("location") };
    },
    /** Signs in through the form; returns the POST's answer. */
    async signIn(login: string, password: string) {
      await this.get("/users/sign_in");
      return this.post("/users/sign_in", { "user[login]": login, "user[password]": password });
    },
  };
}

/** Gives a test user a password (users made by `world()` have none). */
export async function setPassword(userId: number, password: string): Promise<void> {
  const digest = await hashPassword(password);
  await withDb((db) => db.update(users).set({ encryptedPassword: digest }).where(eq(users.id, userId)));
}
