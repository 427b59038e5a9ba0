/**
 * The Pages URL shape (docs/pages.md): a project `ns/sub/proj` is served at `<ns>.<PAGES_DOMAIN>/sub/proj`,
 * and the project named `<ns>.<PAGES_DOMAIN>` at the root of `<ns>.<PAGES_DOMAIN>` (Project#pages_url).
 * Scheme and port are the instance's (EXTERNAL_URL or the request's origin), since the same Worker serves both.
 */
export const DEFAULT_PAGES_DOMAIN = "pages.localhost";

export function pagesDomainName(env: { PAGES_DOMAIN?: string }): string {
  return (env.PAGES_DOMAIN || DEFAULT_PAGES_DOMAIN).toLowerCase().replace(/^\.+|\.+$/g, "");
}

/** The site's URL for a project's full path, from the instance's base URL. */
export function pagesUrl(baseUrl: string, pagesDomain: string, fullPath: string): string {
  const base = new URL(baseUrl);
  const [namespace, ...rest] = fullPath.toLowerCase().split("/");
  const host = `${namespace}.${pagesDomain}`;
  const origin = `${base.protocol}//${host}${base.port ? `:${base.port}` : ""}`;
  const projectPath = rest.join("/");
  return projectPath === host ? origin : `${origin}/${projectPath}`;
}

/**
 * The projects a request on `<namespace>.<pagesDomain>` may address, most specific first: each prefix of
 * the path's segments under the namespace (a project in a subgroup is `sub/proj`), then the namespace's
 * root project `<namespace>/<namespace>.<pagesDomain>`. Lower case, as full paths are compared.
 */
export function siteCandidates(namespace: string, pagesDomain: string, segments: string[]): { paths: string[]; root: string } {
  const paths: string[] = [];
  for (let i = 1; i <= Math.min(segments.length, 20); i++) paths.push(`${namespace}/${segments.slice(0, i).join("/")}`.toLowerCase());
  return { paths, root: `${namespace}/${namespace}.${pagesDomain}`.toLowerCase() };
}
