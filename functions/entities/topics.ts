import * as z from "zod";
import type { Topic } from "../../db/schema";
import { webUrl, type PresentContext } from "../kernel/present";

/** API::Entities::Projects::Topic (lib/api/entities/projects/topic.rb); `avatar_url(only_path: false)`. */
export const TopicEntity = z
  .object({
    id: z.int(),
    name: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    total_projects_count: z.int(),
    avatar_url: z.string().nullable(),
  })
  .meta({ id: "Topic" });
export function topic(row: Topic, ctx: PresentContext): z.output<typeof TopicEntity> {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    total_projects_count: row.totalProjectsCount,
    avatar_url: row.avatarUrl?.startsWith("/") ? webUrl(ctx, row.avatarUrl) : row.avatarUrl,
  };
}
