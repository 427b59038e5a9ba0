import * as z from "zod";
import { p } from "../kernel/params";

/** Every web form: Rails' CSRF field (checked by session.ts `requireCsrf`). */
export const FormToken = z.object({ authenticity_token: p.string().optional() });

/** Where a page sends the visitor after signing in: a path of this instance only. */
export const RedirectTo = z.object({ redirect_to: p.string().optional() });

/** POST /users/sign_in: Devise's `user[login]` (username or e-mail) and `user[password]`. */
export const SignIn = z.object({
  ...FormToken.shape,
  ...RedirectTo.shape,
  user: z.object({ login: p.string().optional(), password: p.string().optional() }).optional(),
});
