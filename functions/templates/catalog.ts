import type { Ctx } from "../kernel/env";
import type { FileTemplate, LicenseTemplate } from "../entities/templates";

/** The vendored file template types (TemplateFinder::VENDORED_TEMPLATES without the repository's own). */
export const FILE_TEMPLATE_TYPES = ["gitignores", "gitlab_ci_ymls", "dockerfiles"] as const;
export type FileTemplateType = (typeof FILE_TEMPLATE_TYPES)[number];

type Catalogs = { licenses: LicenseTemplate[] } & Record<FileTemplateType, FileTemplate[]>;

/**
 * The catalogs, once read, for the isolate's life: they are static assets of this deployment
 * (scripts/templates.mjs builds `templates/<type>.json`), so they never change while it runs. Only
 * parsed values are kept, never a pending read, which belongs to the request that started it.
 */
const loaded = new Map<keyof Catalogs, unknown>();

/**
 * A catalog from the Worker's static assets (the ASSETS binding; the license texts alone are about
 * 180 KB, kept out of the bundle). Null when the Worker was deployed without its assets: the template
 * routes then answer as unknown routes.
 */
export async function readCatalog<K extends keyof Catalogs>(c: Ctx, type: K): Promise<Catalogs[K] | null> {
  const cached = loaded.get(type);
  if (cached) return cached as Catalogs[K];
  if (!c.env.ASSETS) return null;
  const res = await c.env.ASSETS.fetch(new Request(new URL(`/templates/${type}.json`, c.req.url)));
  if (!res.ok) {
    await res.body?.cancel();
    return null;
  }
  const catalog = (await res.json()) as Catalogs[K];
  loaded.set(type, catalog);
  return catalog;
}

// LicenseTemplate's placeholders (app/models/license_template.rb), matched case-insensitively.
const PROJECT_PLACEHOLDER = /[<{[](project|description|one\sline\s.+\swhat\sit\sdoes\.)[>}\]]/gi;
const YEAR_PLACEHOLDER = /[<{[](year|yyyy)[>}\]]/gi;
const FULLNAME_PLACEHOLDER = /[<{[](fullname|name\sof\s(author|copyright\sowner))[>}\]]/gi;

/**
 * `LicenseTemplate#resolve!`: the year always (the current UTC year), the project's name and the
 * copyright holder when given. A function replacer, so a `$` in a name is text, not a pattern.
 */
export function resolveLicense(license: LicenseTemplate, values: { projectName?: string | null; fullname?: string | null; now: Date }): LicenseTemplate {
  let content = license.content.replace(YEAR_PLACEHOLDER, () => String(values.now.getUTCFullYear()));
  if (values.projectName) content = content.replace(PROJECT_PLACEHOLDER, () => values.projectName!);
  if (values.fullname) content = content.replace(FULLNAME_PLACEHOLDER, () => values.fullname!);
  return { ...license, content };
}
