import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /topics` (lib/api/topics.rb): Projects::TopicsFinder's params, read by the query as declared. */
export const ListTopics = z.object({
  search: p.string().optional(),
  without_projects: p.bool().optional(),
  ...pageParams.shape,
});
export type TopicFilters = z.output<typeof ListTopics>;

export const OneTopic = z.object({ id: p.id() });

/** `POST /topics`: `name` and `title` required (15.0+), `description` and `avatar` optional. */
export const CreateTopic = z.object({
  name: p.string(),
  title: p.string(),
  description: p.string().optional(),
  avatar: p.file().optional(),
});

/** `PUT /topics/:id`: every attribute optional; `avatar` sent empty removes the avatar (`remove_avatar!`). */
export const UpdateTopic = z.object({
  id: p.id(),
  name: p.string().optional(),
  title: p.string().optional(),
  description: p.string().optional(),
  avatar: p.file().optional(),
});

/** `POST /topics/merge` (15.4). */
export const MergeTopics = z.object({
  source_topic_id: p.id(),
  target_topic_id: p.id(),
});
