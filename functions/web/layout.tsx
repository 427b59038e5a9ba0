/** @jsxImportSource hono/jsx */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Ctx } from "../kernel/env";
import { csrfToken } from "./session";

/**
 * The page shell of every web page: a header (home, explore, the signed-in user's links and the
 * sign-out form, or "Sign in"), breadcrumbs, `<main>`, and a small stylesheet in the page (one request
 * per page, no asset pipeline). Pages work without JavaScript.
 */
const CSS = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f1e24;background:#fff}
a{color:#1f5cc4}a:hover{text-decoration:underline}header.top{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:#292961;color:#fff;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none}header.top .brand{font-weight:700;font-size:1.1rem}header.top nav{display:flex;gap:1rem;align-items:center;margin-left:auto;flex-wrap:wrap}
header.top button{background:none;border:1px solid #fff;color:#fff;border-radius:4px;padding:.15rem .6rem;cursor:pointer;font:inherit}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;color:#000;padding:.25rem}
main{max-width:1100px;margin:0 auto;padding:1rem}nav.crumbs ol{list-style:none;padding:0;margin:0 0 .5rem;display:flex;flex-wrap:wrap;gap:.25rem;color:#535158}
nav.crumbs li+li::before{content:"/";margin-right:.25rem}h1{font-size:1.5rem;margin:.25rem 0 1rem}h2{font-size:1.2rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #dcdcde;vertical-align:top}
.muted{color:#535158}.box{border:1px solid #dcdcde;border-radius:4px;padding:1rem;margin:1rem 0;overflow:auto}
.alert{padding:.5rem 1rem;border-radius:4px;background:#fdd4cd;color:#8d1300;margin:.5rem 0}.notice{padding:.5rem 1rem;border-radius:4px;background:#c3e6cd;color:#0a4020;margin:.5rem 0}
form.stack label{display:block;margin-top:.75rem;font-weight:600}input[type=text],input[type=password],input[type=date],input:not([type]),textarea,select{font:inherit;padding:.35rem;border:1px solid #89888d;border-radius:4px;width:100%;max-width:32rem}
button,.btn{font:inherit;padding:.35rem .9rem;border-radius:4px;border:1px solid #1f5cc4;background:#1f5cc4;color:#fff;cursor:pointer}
button.danger{background:#c91c00;border-color:#c91c00}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}pre{overflow:auto}
.code{border:1px solid #dcdcde;border-radius:4px;overflow:auto}.code table td{border:0;padding:0 .5rem;white-space:pre}.code td.ln{color:#535158;text-align:right;user-select:none;width:1%}
.diff td{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:pre;border:0;padding:0 .5rem}.diff .add{background:#ecfdf0}.diff .del{background:#fbe9eb}.diff .hunk{background:#f0f0ff;color:#535158}
.lang{display:flex;height:8px;border-radius:4px;overflow:hidden;margin:.25rem 0}.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;background:#ececef;font-size:.85rem}
.hljs-keyword,.hljs-selector-tag,.hljs-built_in{color:#8f0c7e}.hljs-string,.hljs-attr{color:#0b6b2b}.hljs-comment{color:#5a5a5a;font-style:italic}.hljs-number,.hljs-literal{color:#0b5394}.hljs-title,.hljs-section{color:#8a3f00}.hljs-type,.hljs-class{color:#6b3aa8}.hljs-meta{color:#6b6b6b}.hljs-variable,.hljs-template-variable{color:#a01414}
.md img{max-width:100%}.md table{width:auto}.md th,.md td{border:1px solid #dcdcde}
`;

export type PageOptions = {
  title: string;
  /** Breadcrumbs: each a label and, but for the last, a link. */
  crumbs?: { label: string; href?: string }[];
};

export function Layout(props: { c: Ctx; options: PageOptions; children?: Child }) {
  const { c, options } = props;
  const actor = c.var.actor;
  const crumbs = options.crumbs ?? [];
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${options.title} · Edgeforge`}</title>
        <style>{raw(CSS)}</style>
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to main content
        </a>
        <header class="top">
          <a class="brand" href="/">
            Edgeforge
          </a>
          <nav aria-label="Main">
            <a href="/explore/projects">Explore</a>
            {actor ? (
              <>
                <a href="/-/user_settings/personal_access_tokens">Access tokens</a>
                <a href={`/${actor.user.username}`}>{actor.user.username}</a>
                <form method="post" action="/users/sign_out" style="margin:0">
                  <input type="hidden" name="authenticity_token" value={csrfToken(c)} />
                  <button type="submit">Sign out</button>
                </form>
              </>
            ) : (
              <a href={`/users/sign_in?redirect_to=${encodeURIComponent(new URL(c.req.url).pathname)}`}>Sign in</a>
            )}
          </nav>
        </header>
        <main id="content">
          {crumbs.length > 0 && (
            <nav class="crumbs" aria-label="Breadcrumbs">
              <ol>
                {crumbs.map((crumb) => (
                  <li>{crumb.href ? <a href={crumb.href}>{crumb.label}</a> : <span aria-current="page">{crumb.label}</span>}</li>
                ))}
              </ol>
            </nav>
          )}
          {props.children}
        </main>
      </body>
    </html>
  );
}

const nonces = new WeakMap<Request, string>();

/**
 * The page's script nonce: a `<script>` runs only with it (the Content-Security-Policy of `page`), so
 * markup that reached a page from user content never runs, even if it escaped the escaping.
 */
export function scriptNonce(c: Ctx): string {
  let nonce = nonces.get(c.req.raw);
  if (!nonce) {
    nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    nonces.set(c.req.raw, nonce);
  }
  return nonce;
}

/** Renders a page in the shell: `return page(c, { title }, <>…</>)`. */
export function page(c: Ctx, options: PageOptions, body: Child, status: 200 | 400 | 401 | 404 | 422 | 429 = 200) {
  c.header("Cache-Control", "no-store");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src 'nonce-${scriptNonce(c)}'; style-src 'unsafe-inline'; img-src * data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`,
  );
  return c.html(
    <>
      {raw("<!doctype html>")}
      <Layout c={c} options={options}>
        {body}
      </Layout>
    </>,
    status,
  );
}

/** The HTML 404 of every web path (what does not exist and what the visitor may not read alike). */
export function notFoundPage(c: Ctx) {
  return page(
    c,
    { title: "Not found" },
    <>
      <h1>404: Page not found</h1>
      <p>The page could not be found or you don't have permission to view it.</p>
      {!c.var.actor && (
        <p>
          <a href={`/users/sign_in?redirect_to=${encodeURIComponent(new URL(c.req.url).pathname)}`}>Sign in</a> to see more.
        </p>
      )}
    </>,
    404,
  );
}

/** An error page in the shell (a refused CSRF token, unreadable input). */
export function errorPage(c: Ctx, status: 400 | 422 | 429, title: string, text: string) {
  return page(
    c,
    { title },
    <>
      <h1>{title}</h1>
      <p>{text}</p>
    </>,
    status,
  );
}
