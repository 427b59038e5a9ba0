// The layering rule of functions/ (checked by test/node/layers.test.mjs on every `npm test`):
//
//   kernel/      imports only kernel/
//   entities/    (the presenters, as GitLab's lib/api/entities/) imports kernel/ and entities/
//   shared/      imports kernel/, entities/ and shared/
//   <domain>/    imports those and its own files; from another domain only that domain's public face,
//                `functions/<domain>/public.ts`
//   app.ts, index.ts, queue.ts, scheduled.ts: the composition root, may import anything
//
// and, everywhere: no import loop, type-only imports included; route files import neither drizzle-orm
// nor db/schema (SQL lives in queries and services). `db/` and npm packages are open to every layer.
// The rule has no exceptions: a row type or pure helper a presenter needs lives in functions/entities/
// (the domain's queries import it from there), or the domain evaluates the value and passes it in.
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-import-loop",
      comment: "Two files that import each other, directly or around a loop (type-only imports too).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-imports-only-kernel",
      comment: "functions/kernel/ is GitLab wire plumbing: it imports only itself (and db/, packages).",
      severity: "error",
      from: { path: "^functions/kernel/" },
      to: { path: "^functions/", pathNot: "^functions/kernel/" },
    },
    {
      name: "presenters-import-kernel-and-presenters",
      comment: "A presenter (functions/entities/) turns preloaded rows into GitLab's JSON: kernel and other presenters only.",
      severity: "error",
      from: { path: "^functions/entities/" },
      to: { path: "^functions/", pathNot: "^functions/(kernel|entities)/" },
    },
    {
      name: "shared-imports-kernel-presenters-shared",
      comment: "functions/shared/ is machinery several domains use: it never imports a domain or the composition root.",
      severity: "error",
      from: { path: "^functions/shared/" },
      to: { path: "^functions/", pathNot: "^functions/(kernel|entities|shared)/" },
    },
    {
      name: "domain-imports-other-domains-public-face-only",
      comment: "From another domain, a domain imports only functions/<domain>/public.ts; never the composition root.",
      severity: "error",
      from: { path: "^functions/([^/]+)/", pathNot: "^functions/(kernel|entities|shared)/" },
      to: {
        path: "^functions/",
        pathNot: ["^functions/(kernel|entities|shared)/", "^functions/$1/", "^functions/[^/]+/public[.]ts$"],
      },
    },
    {
      name: "routes-have-no-sql",
      comment: "Route files (routes.ts, routes/*.ts) name neither drizzle-orm nor db/schema: a row type they need is re-exported by queries.ts.",
      severity: "error",
      from: { path: "^functions/[^/]+/routes([.]ts$|/)" },
      to: { path: ["(^|/)node_modules/drizzle-orm/", "^db/schema"] },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count: a loop of types is still a loop to a reader.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(test|scripts|bench)/" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js"] },
  },
};
