import { requireAdmin } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, checkUnmodifiedSince, isUniqueViolation, recordNotFound, validation } from "../kernel/errors";
import { pageOf, paginate } from "../kernel/pagination";
import { rawParams, readParams, readParamsWithPath, validateParams, withPathParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { avatarErrors, removeAvatar, storeAvatar } from "../shared/uploads";
import { topic, TopicEntity } from "../entities/topics";
import { CreateTopic, ListTopics, MergeTopics, OneTopic, UpdateTopic } from "./params";
import * as q from "./queries";

/**
 * Project topics (lib/api/topics.rb, app/models/projects/topic.rb): anyone reads them; administrators
 * write (`authenticated_as_admin!`: 401 anonymous, 403 others). A project's topics are set by
 * `topics`/`tag_list` on project create and update (functions/projects), through the one writer of
 * `project_topics` (migration 0043's `project_topics_assign`).
 */
export const topicsRoutes = router();

/** `Projects::Topic.find(id)`: `404 Not found` (RecordNotFound). */
async function findTopic(c: Ctx, id: number): Promise<q.Topic> {
  const found = await q.findTopic(c.var.db(), id);
  if (!found) throw recordNotFound();
  return found;
}

/**
 * Projects::Topic's validations, message for message: name present, at most 255 characters and unique
 * case-insensitively (when it changes); title present on create and at most 255; description at most
 * 1024; then Avatarable's.
 */
async function topicErrors(c: Ctx, v: { name?: string; title?: string; description?: string; avatar?: File }, current: q.Topic | null) {
  const errors: Record<string, string[]> = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (v.name !== undefined) {
    if (v.name.trim() === "") add("name", "can't be blank");
    if ([...v.name].length > 255) add("name", "is too long (maximum is 255 characters)");
    if (v.name.trim() !== "" && v.name !== current?.name && (await q.nameTaken(c.var.db(), v.name, current?.id ?? null))) add("name", "has already been taken");
  }
  if (v.title !== undefined) {
    if (!current && v.title.trim() === "") add("title", "can't be blank");
    if ([...v.title].length > 255) add("title", "is too long (maximum is 255 characters)");
  }
  if (v.description !== undefined && [...v.description].length > 1024) add("description", "is too long (maximum is 1024 characters)");
  const avatar = v.avatar ? avatarErrors(v.avatar) : [];
  if (avatar.length) errors.avatar = avatar;
  if (Object.keys(errors).length) throw validation(errors);
}

/** A concurrent write that took the name between the check and the write: the same 400. */
function raced(err: unknown): never {
  if (isUniqueViolation(err, "index_topics_on_lower_name")) throw validation({ name: ["has already been taken"] });
  throw err;
}

/** GET /topics (Projects::TopicsFinder) */
topicsRoutes.get("/topics", { params: ListTopics, response: [TopicEntity] }, async (c) => {
  const params = await readParams(c, ListTopics);
  const page = pageOf(params);
  const { rows, total } = await q.listTopics(c.var.db(), params, page);
  paginate(c, page, total);
  return present(c, rows, topic);
});

/** POST /topics/merge (Topics::MergeService, 15.4) */
topicsRoutes.post("/topics/merge", { params: MergeTopics, response: TopicEntity }, async (c) => {
  const params = await readParams(c, MergeTopics);
  requireAdmin(c);
  const source = await findTopic(c, params.source_topic_id);
  const target = await findTopic(c, params.target_topic_id);
  // Differs from GitLab: 15.4's MergeService deletes a topic merged into itself (projects lose it);
  // later releases refuse it with this message, as here.
  if (source.id === target.id) throw apiError("The source topic and the target topic are identical.", 400);
  const merged = await c.var.db().transaction((tx) => q.mergeTopics(tx, source.id, target.id));
  if (!merged) throw recordNotFound();
  return present(c, merged, topic, undefined, 201);
});

/** GET /topics/:id */
topicsRoutes.get("/topics/:id{[^/]+}", { params: OneTopic, response: TopicEntity }, async (c) => {
  const params = await readParamsWithPath(c, OneTopic, [], []);
  return present(c, await findTopic(c, params.id), topic);
});

/** POST /topics */
topicsRoutes.post("/topics", { params: CreateTopic, response: TopicEntity }, async (c) => {
  const params = await readParams(c, CreateTopic);
  requireAdmin(c);
  await topicErrors(c, params, null);
  const db = c.var.db();
  let created = await q.insertTopic(db, { name: params.name, title: params.title, description: params.description ?? null }).catch(raced);
  if (params.avatar) created = { ...created, avatarUrl: await storeAvatar(db, c.env.BLOBS, "topic", created.id, params.avatar) };
  return present(c, created, topic, undefined, 201);
});

/** PUT /topics/:id */
topicsRoutes.put("/topics/:id{[^/]+}", { params: UpdateTopic, response: TopicEntity }, async (c) => {
  const raw = withPathParams(c, await rawParams(c), []);
  // `topic.remove_avatar! if params.key?(:avatar) && params[:avatar].nil?`: Grape reads a blank value as nil.
  const removing = "avatar" in raw && (raw.avatar === null || raw.avatar === "");
  if (removing) delete raw.avatar;
  const params = validateParams(raw, UpdateTopic);
  requireAdmin(c);
  const current = await findTopic(c, params.id);
  await topicErrors(c, params, current);
  const db = c.var.db();
  const changes: q.TopicChanges = {};
  if (params.name !== undefined) changes.name = params.name;
  if (params.title !== undefined) changes.title = params.title;
  if (params.description !== undefined) changes.description = params.description;
  if (removing) await removeAvatar(db, c.env.BLOBS, "topic", current.id);
  let updated = Object.keys(changes).length ? await q.updateTopic(db, current.id, changes).catch(raced) : await q.findTopic(db, current.id);
  if (!updated) throw recordNotFound();
  if (params.avatar) updated = { ...updated, avatarUrl: await storeAvatar(db, c.env.BLOBS, "topic", updated.id, params.avatar) };
  return present(c, updated, topic);
});

/** DELETE /topics/:id (14.8; `destroy_conditionally!`) */
topicsRoutes.delete("/topics/:id{[^/]+}", { params: OneTopic }, async (c) => {
  const params = await readParamsWithPath(c, OneTopic, [], []);
  requireAdmin(c);
  const found = await findTopic(c, params.id);
  checkUnmodifiedSince(c.req.header("if-unmodified-since"), found.updatedAt);
  await q.deleteTopic(c.var.db(), found.id);
  if (found.avatarUrl?.startsWith("/uploads/-/system/")) await c.env.BLOBS.delete(found.avatarUrl.slice(1));
  return c.body(null, 204);
});
