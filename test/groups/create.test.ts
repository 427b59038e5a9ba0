import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { members } from "../../db/schema";
import { statusAndBody } from "../helpers/client";
import { requiresAuthentication } from "../helpers/shared";
import { world, type World } from "../helpers/world";
import { groupRow, setCanCreateGroup, token, type Json } from "./support";

async function groupMembers(w: World, groupId: number) {
  return w.db((db) =>
    db
      .select({ userId: members.userId, accessLevel: members.accessLevel })
      .from(members)
      .where(and(eq(members.sourceType, "Namespace"), eq(members.sourceId, groupId))),
  );
}

const failed = (errors: string) => ({ message: `Failed to save group ${errors}` });

describe("POST /groups", () => {
  requiresAuthentication((w) => w.anonymous.post("/groups", { json: { name: "x", path: "x" } }));

  it("creates a top-level group with GitLab's defaults and its creator as an owner member", async () => {
    const w = await world();
    const user = await w.user();
    const path = token();
    const res = await w.as(user).post("/groups", { json: { name: "My Group", path, description: "about" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      id: expect.any(Number),
      web_url: `http://edgeforge.test/groups/${path}`,
      name: "My Group",
      path,
      description: "about",
      visibility: "private",
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: "developer",
      auto_devops_enabled: null,
      subgroup_creation_level: "maintainer",
      emails_disabled: false,
      mentions_disabled: false,
      lfs_enabled: true,
      default_branch_protection: 2,
      avatar_url: null,
      request_access_enabled: true,
      full_name: "My Group",
      full_path: path,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      parent_id: null,
      file_template_project_id: null,
      shared_with_groups: [],
    });
    expect(await groupRow(w, body.id)).toMatchObject({ type: "Group", traversalIds: [body.id], fullPath: path, fullName: "My Group" });
    expect(await groupMembers(w, body.id)).toEqual([{ userId: user.id, accessLevel: 50 }]);
  });

  it("takes the settings it is given (form-encoded too)", async () => {
    const w = await world();
    const user = await w.user();
    const res = await w.as(user).post("/groups", {
      form: {
        name: "Settings",
        path: token(),
        visibility: "internal",
        share_with_group_lock: "true",
        require_two_factor_authentication: "1",
        two_factor_grace_period: 12,
        project_creation_level: "noone",
        auto_devops_enabled: "false",
        subgroup_creation_level: "owner",
        emails_disabled: "yes",
        mentions_disabled: "true",
        lfs_enabled: "false",
        request_access_enabled: "false",
        default_branch_protection: 0,
      },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      visibility: "internal",
      share_with_group_lock: true,
      require_two_factor_authentication: true,
      two_factor_grace_period: 12,
      project_creation_level: "noone",
      auto_devops_enabled: false,
      subgroup_creation_level: "owner",
      emails_disabled: true,
      mentions_disabled: true,
      lfs_enabled: false,
      request_access_enabled: false,
      default_branch_protection: 0,
    });
  });

  it("creates a subgroup below a parent the caller owns, inheriting the share lock", async () => {
    const w = await world();
    const user = await w.user();
    const parent = await w.group({ visibility: "internal", owners: [user] });
    await w.db((db) => db.execute(`UPDATE namespaces SET share_with_group_lock = true WHERE id = ${parent.id}` as never));
    const res = await w.as(user).post("/groups", { json: { name: "Child", path: "child", parent_id: parent.id } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      parent_id: parent.id,
      full_path: `${parent.fullPath}/child`,
      full_name: `${parent.name} / Child`,
      web_url: `http://edgeforge.test/groups/${parent.fullPath}/child`,
      visibility: "private",
      share_with_group_lock: true,
    });
    expect((await groupRow(w, body.id)).traversalIds).toEqual([parent.id, body.id]);
    expect(await groupMembers(w, body.id)).toEqual([{ userId: user.id, accessLevel: 50 }]);
  });

  it("lets maintainers create subgroups when the parent allows it, not developers", async () => {
    const w = await world();
    const maintainer = await w.user();
    const developer = await w.user();
    const parent = await w.group({ maintainers: [maintainer], developers: [developer] });
    const create = (as: typeof maintainer, path: string) => w.as(as).post("/groups", { json: { name: path, path, parent_id: parent.id } });
    expect((await create(maintainer, "by-maintainer")).status).toBe(201);
    expect(await statusAndBody(await create(developer, "by-developer"))).toEqual([403, { message: "403 Forbidden" }]);
    await w.db((db) => db.execute(`UPDATE namespaces SET subgroup_creation_level = 0 WHERE id = ${parent.id}` as never));
    expect(await statusAndBody(await create(maintainer, "again"))).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("refuses top-level groups to users who may not create groups, but not subgroups of their groups", async () => {
    const w = await world();
    const user = await w.user();
    await setCanCreateGroup(w, user.id, false);
    expect(await statusAndBody(await w.as(user).post("/groups", { json: { name: "no", path: token() } }))).toEqual([
      403,
      { message: "403 Forbidden" },
    ]);
    const parent = await w.group({ owners: [user] });
    expect((await w.as(user).post("/groups", { json: { name: "yes", path: "yes", parent_id: parent.id } })).status).toBe(201);
  });

  it("answers 404 for a parent the caller cannot see", async () => {
    const w = await world();
    const hidden = await w.group({ visibility: "private" });
    expect(await statusAndBody(await w.as(w.stranger).post("/groups", { json: { name: "x", path: "x1", parent_id: hidden.id } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
    expect(await statusAndBody(await w.as(w.stranger).post("/groups", { json: { name: "x", path: "x1", parent_id: 999999999 } }))).toEqual([
      404,
      { message: "404 Group Not Found" },
    ]);
  });

  it("answers GitLab's exact 400 for a path already taken, by a group (any case) or by a sibling project", async () => {
    const w = await world();
    const user = await w.user();
    const existing = await w.group({ owners: [user] });
    const taken = [400, failed('{:path=>["has already been taken"]}')];
    expect(await statusAndBody(await w.as(user).post("/groups", { json: { name: "Dup", path: existing.path.toUpperCase() } }))).toEqual(taken);
    await w.project({ group: existing, path: "proj" });
    expect(await statusAndBody(await w.as(user).post("/groups", { json: { name: "p", path: "proj", parent_id: existing.id } }))).toEqual(
      taken,
    );
    // A user's namespace is a route too.
    expect(await statusAndBody(await w.as(user).post("/groups", { json: { name: "u", path: user.username } }))).toEqual(taken);
  });

  it("answers GitLab's model validation messages", async () => {
    const w = await world();
    const user = await w.user();
    const post = (json: Json) => w.as(user).post("/groups", { json });
    expect(await statusAndBody(await post({ name: "Api", path: "api" }))).toEqual([400, failed('{:path=>["api is a reserved name"]}')]);
    expect(await statusAndBody(await post({ name: "Bad", path: "-bad.git" }))).toEqual([
      400,
      failed(`{:path=>["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."]}`),
    ]);
    expect(await statusAndBody(await post({ name: "<b>x</b>", path: "x", description: "d".repeat(256), two_factor_grace_period: -1 }))).toEqual([
      400,
      failed(
        `{:description=>["is too long (maximum is 255 characters)"], :path=>["is too short (minimum is 2 characters)"], ` +
          `:two_factor_grace_period=>["must be greater than or equal to 0"], ` +
          `:name=>["cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).", "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'."]}`,
      ),
    ]);
    expect((await post({ name: "Équipe 🚀 (ops) v2.0", path: token() })).status).toBe(201);
    const parent = await w.group({ visibility: "internal", owners: [user] });
    expect(await statusAndBody(await post({ name: "Pub", path: "pub", parent_id: parent.id, visibility: "public" }))).toEqual([
      400,
      failed('{:visibility_level=>["public is not allowed since the parent group has a internal visibility."]}'),
    ]);
    // Subgroups may use names reserved at the top level, not those reserved below a group.
    expect((await post({ name: "api", path: "api", parent_id: parent.id })).status).toBe(201);
    expect(await statusAndBody(await post({ name: "tree", path: "tree", parent_id: parent.id }))).toEqual([
      400,
      failed('{:path=>["tree is a reserved name"]}'),
    ]);
  });

  it("answers Grape's 400 for missing or invalid parameters", async () => {
    const w = await world();
    const as = w.as(w.stranger);
    expect(await statusAndBody(await as.post("/groups", { json: {} }))).toEqual([400, { error: "name is missing, path is missing" }]);
    expect(
      await statusAndBody(
        await as.post("/groups", { json: { name: "n", path: "p1", visibility: "secret", project_creation_level: "all", default_branch_protection: 4 } }),
      ),
    ).toEqual([
      400,
      {
        error:
          "visibility does not have a valid value, project_creation_level does not have a valid value, default_branch_protection does not have a valid value",
      },
    ]);
    expect(
      await statusAndBody(await as.post("/groups", { json: { name: "n", path: "p1", parent_id: "abc", two_factor_grace_period: 2 ** 31 } })),
    ).toEqual([400, { error: "parent_id is invalid, two_factor_grace_period is invalid" }]);
  });

  it("refuses tokens without the api scope", async () => {
    const w = await world();
    const reader = await w.user({ scopes: ["read_api"] });
    expect(await statusAndBody(await w.as(reader).post("/groups", { json: { name: "n", path: token() } }))).toEqual([
      403,
      {
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "api",
      },
    ]);
  });
});
