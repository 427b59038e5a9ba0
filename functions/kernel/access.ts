/** Gitlab::Access levels (lib/gitlab/access.rb). */
export const Access = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export const PROJECT_ACCESS_LEVELS = [10, 20, 30, 40, 50];
export const GROUP_ACCESS_LEVELS = [5, 10, 20, 30, 40, 50];

/** Gitlab::VisibilityLevel. */
export const Visibility = { PRIVATE: 0, INTERNAL: 10, PUBLIC: 20 } as const;
export const VISIBILITY_NAMES = ["private", "internal", "public"] as const;
export type VisibilityName = (typeof VISIBILITY_NAMES)[number];

export function visibilityName(level: number): VisibilityName {
  return level >= 20 ? "public" : level >= 10 ? "internal" : "private";
}

export function visibilityLevel(name: VisibilityName): number {
  return name === "public" ? 20 : name === "internal" ? 10 : 0;
}
