import * as z from "zod";

/** API::Entities::WikiPageBasic (lib/api/entities/wiki_page_basic.rb). */
export const WikiPageBasic = z.object({ format: z.string(), slug: z.string(), title: z.string() }).meta({ id: "WikiPageBasic" });
/** API::Entities::WikiPage: the basic fields, the content (raw, or rendered with `render_html`) and its encoding. */
export const WikiPage = WikiPageBasic.extend({ content: z.string(), encoding: z.string() }).meta({ id: "WikiPage" });
/** A list's page: WikiPage with `with_content`, else WikiPageBasic. */
export const WikiPageListed = z.union([WikiPage, WikiPageBasic]).meta({ id: "WikiPageListed" });
/** API::Entities::WikiAttachment. */
export const WikiAttachment = z
  .object({
    file_name: z.string(),
    file_path: z.string(),
    branch: z.string(),
    link: z.object({ url: z.string(), markdown: z.string() }),
  })
  .meta({ id: "WikiAttachment" });

export type WikiPageRow = { format: string; slug: string; title: string; content?: string; encoding?: string };

export function wikiPageBasic(row: WikiPageRow): z.output<typeof WikiPageBasic> {
  return { format: row.format, slug: row.slug, title: row.title };
}

export function wikiPage(row: WikiPageRow): z.output<typeof WikiPage> {
  return { ...wikiPageBasic(row), content: row.content ?? "", encoding: row.encoding ?? "UTF-8" };
}

export type WikiAttachmentRow = { fileName: string; filePath: string; branch: string; markdown: string };

export function wikiAttachment(row: WikiAttachmentRow): z.output<typeof WikiAttachment> {
  return { file_name: row.fileName, file_path: row.filePath, branch: row.branch, link: { url: row.filePath, markdown: row.markdown } };
}
