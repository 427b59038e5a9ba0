/** @jsxImportSource hono/jsx */
import type { Ctx } from "../kernel/env";
import { page } from "./layout";
import { csrfToken } from "./session";

/** GET /users/sign_in (and a refused POST, with Devise's alert): username or e-mail, and password. */
export function signInPage(c: Ctx, opts: { redirectTo: string; alert?: string; login?: string }, status: 200 | 401 = 200) {
  return page(
    c,
    { title: "Sign in" },
    <>
      <h1>Sign in</h1>
      {opts.alert && (
        <p class="alert" role="alert">
          {opts.alert}
        </p>
      )}
      <form class="stack" method="post" action="/users/sign_in">
        <input type="hidden" name="authenticity_token" value={csrfToken(c)} />
        {opts.redirectTo && <input type="hidden" name="redirect_to" value={opts.redirectTo} />}
        <label for="user_login">Username or email</label>
        <input type="text" id="user_login" name="user[login]" autocomplete="username" required value={opts.login ?? ""} />
        <label for="user_password">Password</label>
        <input type="password" id="user_password" name="user[password]" autocomplete="current-password" required />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    </>,
    status,
  );
}
