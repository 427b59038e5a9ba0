import type { Topic } from "../../db/schema";
import { webUrl, type PresentContext } from "../kernel/present";

/** API::Entities::Projects::Topic (lib/api/entities/projects/topic.rb); `avatar_url(only_path: false)`. */
export function topic(row: Topic, ctx: PresentContext) {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    total_projects_count: row.totalProjectsCount,
    avatar_url: row.avatarUrl?.startsWith("/") ? webUrl(ctx, row.avatarUrl) : row.avatarUrl,
  };
}
