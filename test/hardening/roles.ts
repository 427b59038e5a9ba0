// The roles and visibilities of both authorization matrices, and the users and clients behind each role.
import type { Client } from "../helpers/client";
import type { World } from "../helpers/world";

export const ROLES = ["anonymous", "non-member", "guest", "reporter", "developer", "maintainer", "owner", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const VISIBILITIES = ["public", "internal", "private"] as const;
export type Vis = (typeof VISIBILITIES)[number];

/** One user per member role (plus an admin and a non-member), and a client for every role. */
export async function roleClients(w: World) {
  const [guest, reporter, developer, maintainer, owner, admin, stranger] = await Promise.all([
    w.user(), w.user(), w.user(), w.user(), w.user(), w.user({ admin: true }), w.user(),
  ]);
  const clients: Record<Role, Client> = {
    anonymous: w.anonymous,
    "non-member": w.as(stranger),
    guest: w.as(guest),
    reporter: w.as(reporter),
    developer: w.as(developer),
    maintainer: w.as(maintainer),
    owner: w.as(owner),
    admin: w.as(admin),
  };
  return { users: { guest, reporter, developer, maintainer, owner }, clients };
}
