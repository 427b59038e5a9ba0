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

/** Lists of the web pages: `?page=` (20 or 40 rows a page). */
export const PageNumber = z.object({ page: p.int().optional() });

/** GET /:project/-/commits/:ref: a page, and a path to follow (GitLab's `?path=`). */
export const CommitsQuery = z.object({ ...PageNumber.shape, path: p.string().optional() });

/** POST /-/user_settings/personal_access_tokens: the form's fields (PersonalAccessTokens::CreateService). */
export const CreateToken = z.object({
  ...FormToken.shape,
  name: p.string().optional(),
  expires_at: p.string().optional(),
  scopes: p.strings().optional(),
});
