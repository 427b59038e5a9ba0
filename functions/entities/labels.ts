import * as z from "zod";
import type { Label as LabelModel } from "../../db/schema";
import type { PresentContext } from "../kernel/present";

/** The columns LabelBasic reads: issue rows carry labels in this shape (shared/issuables/issue_preload.ts). */
export type LabelBasicRow = Pick<LabelModel, "id" | "title" | "color" | "description">;

/**
 * A label of a project list: the row, whether it is the project's own (else an ancestor group's),
 * and the counts of `with_counts=true` (null when not asked for).
 */
export type LabelRow = LabelModel & {
  counts: { openIssues: number; closedIssues: number; openMergeRequests: number } | null;
  /** The caller's subscription at the project, or at the group level for a group label (no row: false). */
  subscribed: boolean;
};

/**
 * `Gitlab::Color#contrast` (lib/gitlab/color.rb): light backgrounds (r + g + b > 500) take `#333333`,
 * everything else `#FFFFFF`.
 */
export function textColor(color: string): string {
  const value = color.trim();
  if (!/^#(?:[0-9A-Fa-f]{3}){1,2}$/.test(value)) return "#FFFFFF";
  const hex = value.slice(1);
  const channels = hex.length === 3 ? [...hex].map((c) => parseInt(c + c, 16)) : [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return channels.reduce((a, b) => a + b, 0) > 500 ? "#333333" : "#FFFFFF";
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * `description_html` where the route did not render it (shared/markdown, the single-line pipeline): the
 * description HTML-escaped.
 * Differs from GitLab: where no rendering was passed in (`LabelHtml`; labels nested in issues and merge
 * requests), no emoji, autolinks or references.
 */
export function descriptionHtml(description: string | null): string | null {
  if (description === null) return null;
  return description.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}

/** Labels' `description_html` as the route rendered it (GitLab's single-line pipeline), by label id. */
export type LabelHtml = { labelDescriptionsHtml?: Map<number, string | null> };

/** API::Entities::LabelBasic (lib/api/entities/label_basic.rb): also the `labels` of issues with details. */
export const LabelBasic = z
  .object({
    id: z.int(),
    name: z.string(),
    color: z.string(),
    description: z.string().nullable(),
    description_html: z.string().nullable(),
    text_color: z.string(),
    remove_on_close: z.boolean(),
  })
  .meta({ id: "LabelBasic" });
export function labelBasic(label: LabelBasicRow, ctx?: PresentContext & LabelHtml): z.output<typeof LabelBasic> {
  const rendered = ctx?.labelDescriptionsHtml;
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: rendered?.has(label.id) ? rendered.get(label.id)! : descriptionHtml(label.description),
    text_color: textColor(label.color),
    // Differs from GitLab: labels cannot be set to leave closed issues here, so this is always false.
    remove_on_close: false,
  };
}

/**
 * API::Entities::Label (lib/api/entities/label.rb), what project and group labels share: LabelBasic, the
 * counts only with `with_counts`, then `subscribed`.
 */
export const Label = LabelBasic.extend({
  open_issues_count: z.int().optional(),
  closed_issues_count: z.int().optional(),
  open_merge_requests_count: z.int().optional(),
  subscribed: z.boolean(),
}).meta({ id: "Label" });
function labelWithCounts(row: LabelRow, ctx?: PresentContext & LabelHtml): z.output<typeof Label> {
  return {
    ...labelBasic(row, ctx),
    ...(row.counts
      ? {
          open_issues_count: row.counts.openIssues,
          closed_issues_count: row.counts.closedIssues,
          open_merge_requests_count: row.counts.openMergeRequests,
        }
      : {}),
    // Entities::Label#subscribed: at the group level, or at the project for a project's list (labels/queries.ts#subscription).
    subscribed: row.subscribed,
  };
}

/** API::Entities::ProjectLabel (lib/api/entities/project_label.rb): Entities::Label, then `priority` and `is_project_label`. */
export const ProjectLabel = Label.extend({ priority: z.int().nullable(), is_project_label: z.boolean() }).meta({ id: "ProjectLabel" });
export function projectLabel(row: LabelRow, ctx: PresentContext & { projectId: number } & LabelHtml): z.output<typeof ProjectLabel> {
  const own = row.projectId === ctx.projectId;
  return { ...labelWithCounts(row, ctx), priority: own ? row.priority : null, is_project_label: own };
}

/** API::Entities::GroupLabel (lib/api/entities/group_label.rb): Entities::Label as it is. */
export const GroupLabel = Label;
export function groupLabel(row: LabelRow, ctx?: PresentContext & LabelHtml): z.output<typeof GroupLabel> {
  return labelWithCounts(row, ctx);
}
