import * as z from "zod";
import type { GitCommitRow } from "../../db/schema";
import { isoTime, webUrl, type PresentContext } from "../kernel/present";
import { Commit, commit } from "./commits";
import { Milestone, milestone, type MilestoneRow } from "./milestones";
import { UserBasic, userBasic, type UserBasicRow } from "./users";

export const LINK_TYPES = ["other", "runbook", "image", "package"] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export type ReleaseLinkRow = { id: number; name: string; url: string; filepath: string | null; linkType: string };
export type ReleaseEvidenceRow = { id: number; summarySha: string; createdAt: Date | string };
/** A release with everything its entity shows, preloaded (queries.ts loads it in one statement). */
export type ReleaseRow = {
  id: number;
  projectId: number;
  tag: string;
  name: string | null;
  description: string | null;
  sha: string | null;
  releasedAt: Date | string;
  createdAt: Date | string;
  projectPath: string;
  author: UserBasicRow | null;
  links: ReleaseLinkRow[];
  evidences: ReleaseEvidenceRow[];
  milestones: (MilestoneRow & { issueStats: { total: number; closed: number } })[];
  commit?: GitCommitRow | null;
  descriptionHtml?: string | null;
};

/** What the caller may see: `download_code` shows the commit, the tag path, sources and evidences. */
export type ReleaseContext = PresentContext & { downloadCode: boolean; readMilestones: boolean; canUpdate: boolean; includeHtml: boolean };

/** `Releases::Link#direct_asset_url`: the release's download path when a filepath is set, else the URL. */
const releasePath = (row: { projectPath: string; tag: string }) => `${row.projectPath}/-/releases/${encodeURIComponent(row.tag)}`;

/** API::Entities::Releases::Link (lib/api/entities/releases/link.rb). */
export const ReleaseLink = z
  .object({ id: z.int(), name: z.string(), url: z.string(), direct_asset_url: z.string(), external: z.boolean(), link_type: z.string() })
  .meta({ id: "ReleaseLink" });
export function releaseLink(link: ReleaseLinkRow, ctx: PresentContext & { release: { projectPath: string; tag: string } }): z.output<typeof ReleaseLink> {
  const projectUrl = webUrl(ctx, ctx.release.projectPath);
  return {
    id: link.id,
    name: link.name,
    url: link.url,
    direct_asset_url: link.filepath ? webUrl(ctx, `${releasePath(ctx.release)}/downloads${link.filepath}`) : link.url,
    // `Releases::Link#internal?`: the URL points into the project.
    external: !link.url.startsWith(projectUrl),
    link_type: link.linkType,
  };
}

const Source = z.object({ format: z.string(), url: z.string() }).meta({ id: "ReleaseSource" });
const Evidence = z.object({ sha: z.string(), filepath: z.string(), collected_at: z.string().nullable() }).meta({ id: "ReleaseEvidence" });
const MilestoneWithStats = Milestone.extend({ issue_stats: z.object({ total: z.int(), closed: z.int() }) }).meta({ id: "MilestoneWithStats" });

/** `Releases::Source::FORMATS`. */
const SOURCE_FORMATS = ["zip", "tar.gz", "tar.bz2", "tar"];

/**
 * API::Entities::Release (lib/api/entities/release.rb, GitLab 15.4). Differs from GitLab: `assets.sources`
 * point at the API's archive endpoint (`/api/v4/projects/:id/repository/archive.<format>?sha=<tag>`),
 * which downloads, since Edgeforge serves no `/-/archive/` web route.
 */
export const Release = z
  .object({
    name: z.string().nullable(),
    tag_name: z.string(),
    description: z.string().nullable(),
    description_html: z.string().nullable().optional(),
    created_at: z.string().nullable(),
    released_at: z.string().nullable(),
    upcoming_release: z.boolean(),
    author: UserBasic.optional(),
    commit: Commit.optional(),
    milestones: z.array(MilestoneWithStats).optional(),
    commit_path: z.string().optional(),
    tag_path: z.string().optional(),
    assets: z.object({ count: z.int(), sources: z.array(Source).optional(), links: z.array(ReleaseLink) }),
    evidences: z.array(Evidence).optional(),
    _links: z.object({ self: z.string(), edit_url: z.string().optional() }),
  })
  .meta({ id: "Release" });
export function release(row: ReleaseRow, ctx: ReleaseContext): z.output<typeof Release> {
  const sources = SOURCE_FORMATS.map((format) => ({
    format,
    url: webUrl(ctx, `api/v4/projects/${row.projectId}/repository/archive.${format}?sha=${encodeURIComponent(row.tag)}`),
  }));
  const links = [...row.links].sort((a, b) => b.id - a.id); // `Releases::Link.sorted`: newest first
  return {
    name: row.name,
    tag_name: row.tag,
    description: row.description,
    ...(ctx.includeHtml ? { description_html: row.descriptionHtml ?? null } : {}),
    created_at: isoTime(row.createdAt),
    released_at: isoTime(row.releasedAt),
    upcoming_release: new Date(row.releasedAt).getTime() > ctx.now.getTime(),
    ...(row.author ? { author: userBasic(row.author, ctx) } : {}),
    ...(ctx.downloadCode && row.commit ? { commit: commit(row.commit, { ...ctx, projectId: row.projectId, projectPath: row.projectPath }) } : {}),
    ...(row.milestones.length && ctx.readMilestones ? { milestones: row.milestones.map((m) => ({ ...milestone(m, ctx), issue_stats: m.issueStats })) } : {}),
    ...(ctx.downloadCode && row.sha ? { commit_path: `/${row.projectPath}/-/commit/${row.sha}` } : {}),
    ...(ctx.downloadCode ? { tag_path: `/${row.projectPath}/-/tags/${encodeURIComponent(row.tag)}` } : {}),
    assets: {
      // `Release#assets_count`: links, plus the sources for whoever may download code.
      count: links.length + (ctx.downloadCode ? sources.length : 0),
      ...(ctx.downloadCode ? { sources } : {}),
      links: links.map((l) => releaseLink(l, { ...ctx, release: row })),
    },
    ...(ctx.downloadCode
      ? {
          evidences: row.evidences.map((e) => ({
            sha: e.summarySha,
            filepath: webUrl(ctx, `${releasePath(row)}/evidences/${e.id}.json`),
            collected_at: isoTime(e.createdAt),
          })),
        }
      : {}),
    _links: { self: webUrl(ctx, releasePath(row)), ...(ctx.canUpdate ? { edit_url: webUrl(ctx, `${releasePath(row)}/edit`) } : {}) },
  };
}
