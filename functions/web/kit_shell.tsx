/** @jsxImportSource hono/jsx */
// Until the page shell (layout.tsx, session.ts) lands: a bare page and the CSRF field, so the pages
// can be built and tested. Replaced by re-exports of the shell's own.
import type { Child } from "hono/jsx";
import type { Ctx } from "../kernel/env";

export function csrfField(_c: Ctx) {
  return <input type="hidden" name="authenticity_token" value="" />;
}

export async function requireCsrf(_c: Ctx): Promise<void> {}

export function Layout({ title, children }: { c: Ctx; title: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{title}</title>
      </head>
      <body>
        <main>{children}</main>
      </body>
    </html>
  );
}
