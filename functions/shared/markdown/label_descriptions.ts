import type { Ctx } from "../../kernel/env";
import type { LabelHtml } from "../../entities/labels";
import { renderMarkdownMany, type MarkdownOptions } from "./render";

/**
 * `description_html` of labels (Entities::LabelBasic: `MarkupHelper.markdown_field(label, :description)`,
 * Label's `cache_markdown_field :description, pipeline: :single_line`), for any number of labels with
 * one statement per reference kind; labels without a description cost nothing.
 * Used by the label endpoints and by the issue and merge request lists `with_labels_details`.
 * Differs from GitLab: every label is rendered in the context of the list's project or group (none for
 * lists across projects), where GitLab renders each label in its own project's or group's context.
 */
export async function labelDescriptionsHtml(c: Ctx, rows: { id: number; description: string | null }[], context: Pick<MarkdownOptions, "project" | "group">): Promise<LabelHtml> {
  const unique = [...new Map(rows.map((r) => [r.id, r])).values()];
  const html = await renderMarkdownMany(c, unique.map((r) => r.description), { ...context, singleLine: true });
  return { labelDescriptionsHtml: new Map(unique.map((r, i) => [r.id, html[i]])) };
}
