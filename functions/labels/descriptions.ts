import type { Ctx } from "../kernel/env";
import type { LabelHtml } from "../entities/labels";
import { renderMarkdownMany, type MarkdownOptions } from "../shared/markdown/render";

/**
 * `description_html` of labels (Entities::LabelBasic: `MarkupHelper.markdown_field(label, :description)`,
 * Label's `cache_markdown_field :description, pipeline: :single_line`), for any number of labels with
 * one statement per reference kind; labels without a description cost nothing.
 * Differs from GitLab: every label is rendered in the context of the list's project or group, where
 * GitLab renders an ancestor group's label in that group's context.
 */
export async function labelDescriptionsHtml(c: Ctx, rows: { id: number; description: string | null }[], context: Pick<MarkdownOptions, "project" | "group">): Promise<LabelHtml> {
  const html = await renderMarkdownMany(c, rows.map((r) => r.description), { ...context, singleLine: true });
  return { labelDescriptionsHtml: new Map(rows.map((r, i) => [r.id, html[i]])) };
}
