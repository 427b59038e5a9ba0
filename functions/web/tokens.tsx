/** @jsxImportSource hono/jsx */
import type { PersonalAccessToken } from "../../db/schema";
import { TOKEN_SCOPES } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { pageOf } from "../kernel/pagination";
import { listTokens } from "../personal_access_tokens/public";
import { page } from "./layout";
import { csrfToken } from "./session";

export const TOKENS_PATH = "/-/user_settings/personal_access_tokens";

/**
 * GET /-/user_settings/personal_access_tokens (GitLab 15.4: /-/profile/personal_access_tokens): the
 * signed-in user's active tokens with a revoke button each, and the form that creates one. After a
 * creation the token's value is shown this once.
 */
export async function tokensPage(c: Ctx, opts: { created?: { token: PersonalAccessToken; value: string }; errors?: string[]; status?: 200 | 400 } = {}) {
  const actor = c.var.actor!;
  const { rows } = await listTokens(c.var.db(), { userId: actor.user.id }, { state: "active" }, pageOf({ page: 1, per_page: 100 }));
  const token = csrfToken(c);
  return page(
    c,
    { title: "Personal access tokens", crumbs: [{ label: "User settings" }, { label: "Personal access tokens" }] },
    <>
      <h1>Personal access tokens</h1>
      {opts.created && (
        <div class="notice" role="status">
          <p>
            Your new personal access token <strong>{opts.created.token.name}</strong> has been created. Copy it now: it is not shown again.
          </p>
          <label for="created-token">Your new personal access token</label>
          <input id="created-token" type="text" readonly value={opts.created.value} />
        </div>
      )}
      {opts.errors?.map((e) => (
        <p class="alert" role="alert">
          {e}
        </p>
      ))}
      <h2>Add a personal access token</h2>
      <form class="stack" method="post" action={TOKENS_PATH}>
        <input type="hidden" name="authenticity_token" value={token} />
        <label for="token_name">Token name</label>
        <input type="text" id="token_name" name="name" required />
        <label for="token_expires_at">Expiration date</label>
        <input type="date" id="token_expires_at" name="expires_at" />
        <fieldset>
          <legend>Select scopes</legend>
          {TOKEN_SCOPES.map((scope) => (
            <div>
              <input type="checkbox" id={`scope_${scope}`} name="scopes[]" value={scope} />
              <label for={`scope_${scope}`} style="display:inline;font-weight:normal">
                {scope}
              </label>
            </div>
          ))}
        </fieldset>
        <p>
          <button type="submit">Create personal access token</button>
        </p>
      </form>
      <h2>Active personal access tokens ({rows.length})</h2>
      {rows.length === 0 ? (
        <p class="muted">This user has no active personal access tokens.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Token name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr>
                <td>{t.name}</td>
                <td>{t.scopes.join(", ")}</td>
                <td>{new Date(t.createdAt).toISOString().slice(0, 10)}</td>
                <td>{t.lastUsedAt ? new Date(t.lastUsedAt).toISOString().slice(0, 10) : "Never"}</td>
                <td>{t.expiresAt ?? "Never"}</td>
                <td>
                  <form method="post" action={`${TOKENS_PATH}/${t.id}/revoke`} style="margin:0">
                    <input type="hidden" name="authenticity_token" value={token} />
                    <button type="submit" class="danger" aria-label={`Revoke ${t.name}`}>
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
    opts.status ?? 200,
  );
}
