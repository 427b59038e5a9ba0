import * as z from "zod";

/** A file template (Gitlab::Template::BaseTemplate): a vendored file or a project's issue or merge request template. */
export type FileTemplate = { key: string; name: string; category: string; content: string };

/** A license (LicenseTemplate, from licensee's choosealicense.com data); `content` as resolved for the request. */
export type LicenseTemplate = {
  key: string;
  name: string;
  nickname: string | null;
  popular: boolean;
  html_url: string;
  source_url: string | null;
  description: string | null;
  conditions: string[];
  permissions: string[];
  limitations: string[];
  content: string;
};

/** API::Entities::TemplatesList (lib/api/entities/templates_list.rb). */
export const TemplatesList = z.object({ key: z.string(), name: z.string() }).meta({ id: "TemplatesList" });
export function templatesList(row: { key: string; name: string }): z.output<typeof TemplatesList> {
  return { key: row.key, name: row.name };
}

/** API::Entities::Template (lib/api/entities/template.rb). */
export const Template = z.object({ name: z.string(), content: z.string() }).meta({ id: "Template" });
export function template(row: FileTemplate): z.output<typeof Template> {
  return { name: row.name, content: row.content };
}

/**
 * API::Entities::License (lib/api/entities/license.rb over LicenseBasic): `expose :popular?, as: :popular`.
 * Differs from GitLab: `featured` is sent as well, with the same value: GitLab's documentation
 * (doc/api/templates/licenses.md) shows that name, its entity sends `popular`, and clients read either.
 */
export const License = z
  .object({
    key: z.string(),
    name: z.string(),
    nickname: z.string().nullable(),
    html_url: z.string(),
    source_url: z.string().nullable(),
    popular: z.boolean(),
    featured: z.boolean(),
    description: z.string().nullable(),
    conditions: z.array(z.string()),
    permissions: z.array(z.string()),
    limitations: z.array(z.string()),
    content: z.string(),
  })
  .meta({ id: "License" });
export function license(row: LicenseTemplate): z.output<typeof License> {
  return {
    key: row.key,
    name: row.name,
    nickname: row.nickname,
    html_url: row.html_url,
    source_url: row.source_url,
    popular: row.popular,
    featured: row.popular,
    description: row.description,
    conditions: row.conditions,
    permissions: row.permissions,
    limitations: row.limitations,
    content: row.content,
  };
}
